//! A forecast and a duel as text and JSON: `oc forecast` and `oc duel` print these, and a play
//! server or the language server can show the same table.

use std::fmt::Write as _;

use oc_engine::{Engine, Forecast, Loadout, Shown, SideForecast, StrikeLog};

/// "attacker on Plains, defender in Forest" for the terrain each loadout stands on; a side given
/// none stands on no terrain (no defence bonus, no heal).
pub fn terrain_words(a: &Loadout, d: &Loadout) -> String {
    let on = |l: &Loadout| l.terrain.as_deref().map_or("on no terrain (no bonus)".to_string(), |t| format!("on {t}"));
    format!("attacker {}, defender {}", on(a), on(d))
}

fn side_json(s: &SideForecast) -> serde_json::Value {
    let effective: serde_json::Map<String, serde_json::Value> = s
        .effective
        .iter()
        .map(|(n, v)| {
            let v = match v {
                Shown::Int(i) => serde_json::json!(i),
                Shown::Bool(b) => serde_json::json!(b),
                Shown::Text(t) => serde_json::json!(t),
            };
            (n.clone(), v)
        })
        .collect();
    let mut value = serde_json::json!({
        "class": s.class, "weapon": s.weapon, "hp": s.hp, "max_hp": s.max_hp, "effective": effective,
        "hit": s.hit, "crit": s.crit, "damage": s.damage, "crit_damage": s.crit_damage, "strikes": s.strikes,
    });
    // Where damage is random: one hitting strike's damage, value -> probability.
    if let (Some(obj), false) = (value.as_object_mut(), s.damage_distribution.is_empty()) {
        obj.insert("damage_distribution".into(), distribution(&s.damage_distribution));
    }
    value
}

fn distribution(d: &std::collections::BTreeMap<i64, f64>) -> serde_json::Value {
    serde_json::Value::Object(d.iter().map(|(hp, p)| (hp.to_string(), serde_json::json!(p))).collect())
}

pub fn forecast_json(f: &Forecast) -> serde_json::Value {
    serde_json::json!({
        "attacker": side_json(&f.attacker),
        "defender": side_json(&f.defender),
        "distance": f.distance,
        "attacker_routed": f.attacker_routed,
        "defender_routed": f.defender_routed,
        "attacker_hp": distribution(&f.attacker_hp),
        "defender_hp": distribution(&f.defender_hp),
        "attacker_expected_damage_taken": f.attacker_damage_taken,
        "defender_expected_damage_taken": f.defender_damage_taken,
    })
}

fn pct(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// The compact table the games show: one column per side.
/// `oc forecast`'s text: [`forecast_table`] with the terrain each side stands on in its header.
pub fn forecast_text(engine: &Engine, f: &Forecast, a: &Loadout, d: &Loadout) -> String {
    let table = forecast_table(engine, f);
    let (head, rest) = table.split_once('\n').unwrap_or((&table, ""));
    format!("{head}, {}\n{rest}", terrain_words(a, d))
}

/// `oc forecast --format json`: [`forecast_json`] with the terrain each side stands on.
pub fn forecast_json_on(f: &Forecast, a: &Loadout, d: &Loadout) -> serde_json::Value {
    let mut value = forecast_json(f);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("terrain".into(), serde_json::json!({"attacker": a.terrain, "defender": d.terrain}));
    }
    value
}

pub fn forecast_table(engine: &Engine, f: &Forecast) -> String {
    let (a, d) = (&f.attacker, &f.defender);
    let name = |s: &SideForecast| format!("{} ({})", s.class, s.weapon.clone().unwrap_or_else(|| "unarmed".into()));
    let mut out = String::new();
    let _ = writeln!(out, "{} forecast at distance {}", engine.rules.ruleset.name, f.distance);
    let shown = |s: &SideForecast, stat: &str| match s.effective.iter().find(|(n, _)| n == stat).map(|(_, v)| v) {
        Some(Shown::Int(i)) => i.to_string(),
        Some(Shown::Bool(b)) => b.to_string(),
        Some(Shown::Text(t)) => t.clone(),
        None => String::new(),
    };
    let stats: Vec<(String, String, String)> = engine
        .rules
        .ruleset
        .stats
        .iter()
        .map(|stat| (stat.title.clone().unwrap_or_else(|| stat.name.clone()), shown(a, &stat.name), shown(d, &stat.name)))
        .collect();
    // Columns of 28, wider where a name or a stat's value is longer, and labels as wide as the
    // longest (names, dice and a ruleset's long titles ran together).
    let widest = stats.iter().map(|(_, x, y)| x.chars().count().max(y.chars().count())).max().unwrap_or(0);
    let w = 28.max(name(a).chars().count().max(name(d).chars().count()).max(widest) + 2);
    let lw = 14.max(stats.iter().map(|(l, ..)| l.chars().count() + 2).max().unwrap_or(0));
    let _ = writeln!(out, "{:<lw$}{:>w$}{:>w$}", "", name(a), name(d));
    let row = |out: &mut String, label: &str, x: String, y: String| {
        let _ = writeln!(out, "{label:<lw$}{x:>w$}{y:>w$}");
    };
    row(&mut out, "HP", format!("{}/{}", a.hp, a.max_hp), format!("{}/{}", d.hp, d.max_hp));
    for (label, x, y) in stats {
        row(&mut out, &label, x, y);
    }
    let can = |s: &SideForecast, v: String| if s.strikes == 0 { "-".to_string() } else { v };
    // Rolled damage (damage dice) is said by its mean and range on a hit: its most alone (189
    // for exploding dice) read as what a hit does.
    let damage = |s: &SideForecast| match s.rolled() {
        Some((mean, lo, hi)) => format!("{mean:.1} ({lo}-{hi})"),
        None => s.damage.to_string(),
    };
    let crit_damage = |s: &SideForecast| match () {
        _ if s.crit <= 0.0 => "-".to_string(),
        _ if !s.damage_distribution.is_empty() => format!("up to {}", s.crit_damage),
        _ => s.crit_damage.to_string(),
    };
    row(&mut out, "Damage", can(a, damage(a)), can(d, damage(d)));
    row(&mut out, "Crit damage", can(a, crit_damage(a)), can(d, crit_damage(d)));
    row(&mut out, "Hit", can(a, pct(a.hit)), can(d, pct(d.hit)));
    row(&mut out, "Crit", can(a, pct(a.crit)), can(d, pct(d.crit)));
    row(
        &mut out,
        "Strikes",
        format!("x{}", a.strikes),
        if d.strikes == 0 { "no counter".into() } else { format!("x{}", d.strikes) },
    );
    row(&mut out, "Routed", pct(f.attacker_routed), pct(f.defender_routed));
    row(&mut out, "Damage taken", format!("{:.2}", f.attacker_damage_taken), format!("{:.2}", f.defender_damage_taken));
    out
}

/// A duel's strikes as JSON (`oc duel --format json`).
pub fn duel_json(seed: u64, distance: i64, log: &[StrikeLog], hp: [i64; 2]) -> serde_json::Value {
    let strikes: Vec<serde_json::Value> = log
        .iter()
        .map(|s| {
            let mut v = serde_json::json!({
                "side": if s.side == 0 { "attacker" } else { "defender" }, "stage": s.stage, "roll": s.roll,
                "hit": s.outcome.hit, "crit": s.outcome.crit, "backfire": s.outcome.backfire, "damage": s.outcome.damage,
                "attacker_hp": s.hp_after[0], "defender_hp": s.hp_after[1], "inflicted": s.inflicted,
                "reaction": s.reaction, "shown": s.shown,
            });
            // Only where a reaction to a roll was taken.
            if let (Some(r), Some(map)) = (&s.rerolled, v.as_object_mut()) {
                map.insert("rerolled".into(), serde_json::json!(r));
            }
            v
        })
        .collect();
    serde_json::json!({"seed": seed, "distance": distance, "strikes": strikes, "attacker_hp": hp[0], "defender_hp": hp[1]})
}

/// A duel strike by strike, as `oc duel` prints it (each line ends with a newline).
pub fn duel_text(seed: u64, distance: i64, a: &Loadout, d: &Loadout, log: &[StrikeLog], hp: [i64; 2]) -> String {
    let names = [a.class.to_string(), d.class.to_string()];
    let mut out = String::new();
    let _ = writeln!(
        out,
        "seed {seed}: {} ({}) attacks {} ({}) at distance {distance}",
        names[0],
        a.weapon.unwrap_or_default(),
        names[1],
        d.weapon.unwrap_or_default()
    );
    for (i, s) in log.iter().enumerate() {
        let what = if s.outcome.backfire {
            format!("backfires for {}", s.outcome.damage)
        } else if s.outcome.crit {
            format!("CRITICAL hit for {}", s.outcome.damage)
        } else if s.outcome.hit {
            format!("hits for {}", s.outcome.damage)
        } else {
            "misses".to_string()
        };
        let mut extra = if s.inflicted.is_empty() { String::new() } else { format!(", inflicts {}", s.inflicted.join(", ")) };
        if let Some(r) = &s.reaction {
            extra.push_str(&format!(" ({} reacts: {r})", names.get(1 - s.side.min(1)).map_or("?", String::as_str)));
        }
        if let Some(r) = &s.rerolled {
            extra.push_str(&format!(" (rerolled: {r})"));
        }
        let roll = s.shown.as_ref().map_or_else(|| format!("{:>3}", s.roll), |w| format!("({w})"));
        let _ = writeln!(
            out,
            "{:>2}. {:<9} {:<14} rolls {roll}: {what}{extra}  (HP {} / {})",
            i + 1,
            s.stage,
            names.get(s.side).map_or("?", String::as_str),
            s.hp_after[0],
            s.hp_after[1]
        );
    }
    let end = match (hp[0] <= 0, hp[1] <= 0) {
        (true, _) => format!("{} is routed", names[0]),
        (_, true) => format!("{} is routed", names[1]),
        _ => "both stand".to_string(),
    };
    let _ = writeln!(out, "result: {end}");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn engine() -> Engine {
        let ruleset = oc_play::rules::builtin("officers_chess").unwrap();
        let Ok(loaded) = oc_play::rules::load(&ruleset, "test") else { panic!("the built-in ruleset compiles") };
        loaded.engine
    }

    /// Rolled damage reads as its mean and range on a hit (seed 003's exploding dice read "189",
    /// their most), and two long names keep a space between their columns.
    #[test]
    fn rolled_damage_reads_as_its_mean_and_range() {
        let ruleset = oc_play::rules::builtin("battlestorm").unwrap();
        let Ok(loaded) = oc_play::rules::load(&ruleset, "test") else { panic!("the built-in ruleset compiles") };
        let e = loaded.engine;
        let (a, d) = (Loadout::new("Savage", Some("Shortsword")), Loadout::new("PoisonWyvern", Some("WyvernBite")));
        let f = e.forecast(&a, &d, 1).unwrap();
        let text = forecast_table(&e, &f);
        let damage = text.lines().find(|l| l.starts_with("Damage ")).unwrap();
        let mean: f64 = f.attacker.damage_distribution.iter().map(|(v, p)| *v as f64 * p).sum();
        assert!(damage.contains(&format!("{mean:.1} (0-")), "{text}");
        assert!(text.lines().any(|l| l.starts_with("Crit damage") && l.contains("up to ")), "{text}");
        let mut long = f.clone();
        long.attacker.class = "A".repeat(40);
        long.defender.class = "B".repeat(40);
        let head = forecast_table(&e, &long).lines().nth(1).unwrap().to_string();
        assert!(head.contains(")  B"), "{head}");
    }

    #[test]
    fn a_forecast_reads_as_a_table_and_as_json() {
        let engine = engine();
        let class = &engine.rules.classes[0].name;
        let a = oc_play::matchup::loadout(&engine, class).unwrap();
        let d = oc_play::matchup::loadout(&engine, class).unwrap();
        let distance = oc_play::matchup::distance_for(&engine, &a, None);
        let x = oc_play::matchup::exchange(&engine, &a, &d, distance, Default::default()).unwrap();
        let f = x.forecast();
        let table = forecast_table(&engine, &f);
        assert!(table.starts_with(&format!("{} forecast at distance {distance}\n", engine.rules.ruleset.name)));
        for row in ["HP", "Damage", "Hit", "Crit", "Strikes", "Routed", "Damage taken"] {
            assert!(table.lines().any(|l| l.starts_with(row)), "{row} in\n{table}");
        }
        let json = forecast_json(&f);
        assert_eq!(json["distance"], distance);
        assert!(json["attacker"]["hit"].is_number());
        let (log, hp) = x.resolve(&mut oc_engine::rng(7));
        let text = duel_text(7, distance, &a, &d, &log, hp);
        assert!(text.starts_with("seed 7: ") && text.ends_with('\n'));
        assert_eq!(text.lines().count(), log.len() + 2, "a line per strike, the header and the result");
        assert_eq!(duel_json(7, distance, &log, hp)["strikes"].as_array().map(Vec::len), Some(log.len()));
        assert_eq!(terrain_words(&a, &d), "attacker on no terrain (no bonus), defender on no terrain (no bonus)");
    }
}
