//! The price curve: ln(price) = alpha + beta * strength, a robust straight line (Theil–Sen).

use serde::Serialize;

/// A fitted price curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Fit {
    pub alpha: f64,
    pub beta: f64,
    /// Share of the variance of ln(price) the strength explains.
    pub r2: f64,
    /// Standard deviation of the residuals of ln(price).
    pub residual: f64,
    pub points: usize,
}

impl Fit {
    /// Whether the curve says anything of a price: at least three points, prices rising with
    /// strength, and a better fit than their mean (R^2 above 0).
    pub fn holds(&self) -> bool {
        self.points >= 3 && self.beta > 0.0 && self.r2 > 0.0
    }

    /// The price the curve gives a unit of this strength.
    pub fn price(&self, strength: f64) -> f64 {
        (self.alpha + self.beta * strength).exp()
    }
}

/// Fits ln(price) to strength over `(strength, price)` points with a positive price: the
/// Theil–Sen line (the slope is the median of the slopes between every two points of different
/// strength, the intercept the median of ln(price) - slope * strength), which a few units whose
/// worth the measure misses (siege tomes, healers) cannot tilt as they tilt least squares.
/// `None` with fewer than three such points or when every strength is the same.
pub fn fit(points: &[(f64, f64)]) -> Option<Fit> {
    let pts: Vec<(f64, f64)> =
        points.iter().filter(|(s, p)| *p > 0.0 && s.is_finite() && p.is_finite()).map(|(s, p)| (*s, p.ln())).collect();
    if pts.len() < 3 {
        return None;
    }
    let mut slopes = Vec::new();
    for (k, a) in pts.iter().enumerate() {
        for b in pts.iter().skip(k + 1) {
            if (b.0 - a.0).abs() > 1e-9 {
                slopes.push((b.1 - a.1) / (b.0 - a.0));
            }
        }
    }
    let (_, beta) = median(&slopes)?;
    let (_, alpha) = median(&pts.iter().map(|p| p.1 - beta * p.0).collect::<Vec<_>>())?;
    let n = pts.len() as f64;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let syy = pts.iter().map(|p| (p.1 - my) * (p.1 - my)).sum::<f64>();
    let sse = pts.iter().map(|p| (p.1 - alpha - beta * p.0).powi(2)).sum::<f64>();
    let r2 = if syy > 0.0 { 1.0 - sse / syy } else { 1.0 };
    let residual = (sse / (n - 2.0).max(1.0)).sqrt();
    Some(Fit { alpha, beta, r2, residual, points: pts.len() })
}

/// The median of some numbers (the lower middle one of an even count), with its index.
pub fn median(values: &[f64]) -> Option<(usize, f64)> {
    let mut order: Vec<(f64, usize)> = values.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(k, v)| (*v, k)).collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    order.get(order.len().saturating_sub(1) / 2).map(|(v, k)| (*k, *v))
}

/// The standard deviation of some numbers (0 for fewer than two).
pub fn spread(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let n = values.len() as f64;
    let m = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0)).sqrt()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_exponential_curve_is_found_again() {
        // price = 1000 * e^(0.5 s)
        let pts: Vec<(f64, f64)> = (-4..=4).map(|k| (f64::from(k), 1000.0 * (0.5 * f64::from(k)).exp())).collect();
        let f = fit(&pts).unwrap();
        assert!((f.beta - 0.5).abs() < 1e-9 && (f.price(0.0) - 1000.0).abs() < 1e-6, "{f:?}");
        assert!((f.r2 - 1.0).abs() < 1e-9 && f.residual < 1e-9);
        assert_eq!(fit(&[(1.0, 10.0), (1.0, 20.0), (1.0, 30.0)]), None, "no spread in strength");
        assert_eq!(fit(&[(1.0, 10.0), (2.0, 20.0)]), None, "two points");
        // One point far off the line does not tilt it.
        let mut off = pts.clone();
        off.push((4.0, 5.0));
        let f = fit(&off).unwrap();
        assert!((f.beta - 0.5).abs() < 1e-9, "{f:?}");
    }

    #[test]
    fn medians_and_spreads() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some((2, 2.0)));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some((3, 2.0)));
        assert_eq!(median(&[]), None);
        assert!((spread(&[1.0, 3.0]) - 2f64.sqrt()).abs() < 1e-12);
    }
}
