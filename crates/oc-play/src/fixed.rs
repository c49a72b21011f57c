//! `{:.N}` for the CSV writers, without the formatter's general float machinery: the same text,
//! byte for byte, as `format!("{:.N}", x)` (the exact binary value rounded half to even), worked
//! out with integer arithmetic where the value is small enough; anything else goes to the formatter.

use std::fmt::Write as _;

/// `x` with `digits` decimals, as `{:.digits}` writes it.
pub struct Fixed(pub f64, pub u32);

/// 10^n for the decimals the fast path handles.
const POWERS: [u128; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

impl Fixed {
    /// Appends the text to `out`: digits put down by hand on the fast path, no formatter, and
    /// appended at once.
    pub fn push_to(&self, out: &mut String) {
        match self.digits() {
            Some((buf, at)) => out.push_str(std::str::from_utf8(buf.get(at..).unwrap_or_default()).unwrap_or_default()),
            None => {
                let _ = write!(out, "{:.*}", self.1 as usize, self.0);
            }
        }
    }

    /// The text on the fast path (`None` off it): a buffer and where the text begins in it. The
    /// scaled value fits in 64 bits (below 2^40 × 10^6), so no 128-bit division is taken.
    fn digits(&self) -> Option<([u8; 24], usize)> {
        let Fixed(x, digits) = *self;
        let scaled = scaled(x, digits)?;
        // Sign, at most 13 whole digits, point and 6 decimals: 21 bytes.
        let mut buf = [b'0'; 24];
        let mut at = buf.len();
        let mut put = |b: u8| {
            at = at.checked_sub(1)?;
            *buf.get_mut(at)? = b;
            Some(())
        };
        let mut n = scaled;
        for _ in 0..digits {
            put(b'0' + (n % 10) as u8)?;
            n /= 10;
        }
        if digits > 0 {
            put(b'.')?;
        }
        loop {
            put(b'0' + (n % 10) as u8)?;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        if x.is_sign_negative() {
            put(b'-')?;
        }
        Some((buf, at))
    }
}

/// Appends `n` in decimal, as `{}` writes it.
pub fn push_int(out: &mut String, n: i64) {
    let mut buf = [b'0'; 20];
    let mut at = buf.len();
    let mut m = n.unsigned_abs();
    // At most 19 digits and a sign in 20 bytes.
    while at > 0 {
        at -= 1;
        if let Some(slot) = buf.get_mut(at) {
            *slot = b'0' + (m % 10) as u8;
        }
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(buf.get(at..).unwrap_or_default()).unwrap_or_default());
}

/// |x| × 10^digits rounded half to even, exactly, when `x` is a normal number below 2^40 and
/// `digits` at most 6; `None` otherwise.
fn scaled(x: f64, digits: u32) -> Option<u64> {
    let p = *POWERS.get(digits as usize)?;
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    if x == 0.0 {
        return Some(0);
    }
    if exponent == 0 || exponent == 0x7ff || x.abs() >= (1u64 << 40) as f64 {
        return None;
    }
    // |x| = mantissa × 2^-shift exactly.
    let mantissa = u128::from((bits & ((1u64 << 52) - 1)) | (1u64 << 52));
    let shift = 1075 - exponent;
    let product = mantissa * p;
    if shift <= 0 {
        return None;
    }
    // product < 2^53 × 2^20: past 75 halvings it is below a quarter, so it rounds to 0.
    if shift > 75 {
        return Some(0);
    }
    let q = product >> shift;
    let rest = product & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    let rounded = if rest > half || (rest == half && q % 2 == 1) { q + 1 } else { q };
    u64::try_from(rounded).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::Fixed;

    fn same(x: f64, digits: u32) {
        let mut text = String::new();
        Fixed(x, digits).push_to(&mut text);
        assert_eq!(text, format!("{:.*}", digits as usize, x), "{x:e} to {digits} decimals");
    }

    #[test]
    fn an_integer_is_what_the_formatter_writes() {
        for n in [0, 1, -1, 7, 10, -10, 1234, i64::MAX, i64::MIN] {
            let mut s = String::from("x");
            super::push_int(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    #[test]
    fn writes_what_the_formatter_writes() {
        let specials = [0.0, -0.0, 1.0, -1.0, 0.5, 0.25, 0.125, 0.00005, 0.00015, 0.99995, 2.5, 3.5, 1e-20, -1e-20, 1e12, 5e-5];
        for digits in 0..=6 {
            for x in specials {
                same(x, digits);
            }
            // Halves of the last decimal, and their neighbours one ulp away.
            for k in 0..2000u32 {
                let p = 10f64.powi(digits as i32);
                let tie = (f64::from(k) + 0.5) / p;
                for x in [tie, f64::from_bits(tie.to_bits() + 1), f64::from_bits(tie.to_bits() - 1), -tie] {
                    same(x, digits);
                }
            }
        }
        // A spread of values as a forecast writes them: probabilities and expected damage.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let unit = (seed >> 11) as f64 / (1u64 << 53) as f64;
            for (x, digits) in [(unit, 4), (unit * 60.0, 3), (unit * 1e-6, 4), (-unit * 3.0, 3)] {
                same(x, digits);
            }
        }
    }
}
