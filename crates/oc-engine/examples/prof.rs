use oc_engine::{Engine, Loadout};
fn main() {
    let rules = oc_compiler::stdlib::compile("<std>/ratings.oc").unwrap().rules.unwrap();
    let e0 = Engine::new(rules.clone()).unwrap();
    let units: Vec<Loadout> = e0
        .rules
        .classes
        .iter()
        .filter_map(|c| e0.weapons_for(&c.name).first().map(|w| Loadout::new(&c.name, Some(&w.name))))
        .collect();
    let passes: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(400);
    let mut engines: Vec<Engine> = (0..passes).map(|_| Engine::new(rules.clone()).unwrap()).collect();
    let mut n = 0;
    let t = std::time::Instant::now();
    for e in engines.iter_mut() {
        let built: Vec<_> = units.iter().filter_map(|u| e.prepare(u).ok()).collect();
        for (i, a) in units.iter().enumerate() {
            let (lo, _) = e.reach(&a.class, a.weapon.as_deref().unwrap_or_default()).unwrap_or((1, 1));
            for j in 0..units.len() {
                n += usize::from(e.forecast_prepared(&built[i], &built[j], lo.max(1)).is_ok());
            }
        }
    }
    eprintln!("{n} in {:?} = {:.0}/s", t.elapsed(), n as f64 / t.elapsed().as_secs_f64());
}
