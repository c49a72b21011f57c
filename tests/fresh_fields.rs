//! Fresh mirror fields, made on demand from a seed: hold-outs no AI was tuned on (issue 41: "on
//! mirror fields it was not tuned on, it beats greedy in at least 70% of games on both sides
//! (hidden fields will be used to check)"). The seven fields of `tests/fixtures/mirror/fields/`
//! have been measured round after round; a fresh field has never been looked at.
//!
//! A fresh field is a random map that is its own mirror image. Its west half is a plain with a
//! few blobs of forest, mountain, fort, lake, wall, desert, ruins or pillars, two columns clear
//! for each deployment zone. Its east half is the west half mirrored (column x is column W-1-x).
//! Its zones must be joined by ground that every movement type crosses. Each field gets the
//! ratings and v0.6 mirror matches of the fixtures' plain (`plain-ratings.oc`, `plain-v06.oc`:
//! the same rosters and conditions), by day and by night (`fog vision 3`, as the fixtures' night
//! files).
//!
//! The check below makes a few and proves the tournament plays them. The measurement is ignored
//! (minutes): `cargo test --release --test fresh_fields -- --ignored --nocapture` plays the
//! default against greedy on them and prints a table. Settings:
//! - `OC_FRESH_FIELDS=N`: how many fields (8);
//! - `OC_FRESH_SEED=S`: the first field's seed (1; field k has seed S + k);
//! - `OC_FRESH_GAMES=G`: the tournament's `--games` (10);
//! - `OC_FRESH_AIS="A B"`: the AIs (`planner greedy`);
//! - `OC_FRESH_ONLY=day` or `night`: only those matches (both without it);
//! - `OC_FRESH_DIR=D`: keep the files in D (else a temporary folder).

mod common;

use std::path::Path;

use common::{assert_every_roster_counted, oc, repo, text, Rng};

/// The features a field's west half may hold: symbol, terrain, weight of the draw.
const FEATURES: [(char, &str, usize); 8] = [
    ('f', "Forest", 5),
    ('^', "Mountain", 2),
    ('#', "Wall", 2),
    ('F', "Fort", 1),
    ('w', "Lake", 1),
    ('d', "Desert", 1),
    ('x', "Ruins", 1),
    ('p', "Pillars", 1),
];

/// Terrain some movement type cannot cross (mountains stop armour and horses; lakes and walls
/// everyone on the ground): the zones must be joined without it.
const BLOCKING: [char; 3] = ['^', 'w', '#'];

/// The deployment zones' height (the fixtures' fields deploy eight units in two columns of six).
const ZONE_ROWS: usize = 6;

/// A fresh field: its seed, size, rows and the first row of its deployment zones.
struct Fresh {
    seed: u64,
    width: usize,
    height: usize,
    rows: Vec<Vec<char>>,
    zone_top: usize,
}

impl Fresh {
    /// The field of `seed`: drawn again (from the same generator) until its zones are joined.
    fn new(seed: u64) -> Fresh {
        let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        loop {
            let f = Fresh::draw(seed, &mut rng);
            if f.joined() {
                return f;
            }
        }
    }

    fn draw(seed: u64, rng: &mut Rng) -> Fresh {
        let width = *rng.pick(&[12, 14, 16]);
        let height = *rng.pick(&[8, 10]);
        let half = width / 2;
        let mut rows = vec![vec!['.'; width]; height];
        let total: usize = FEATURES.iter().map(|f| f.2).sum();
        for _ in 0..3 + rng.below(6) {
            let mut roll = rng.below(total);
            let symbol = FEATURES
                .iter()
                .find(|f| {
                    let hit = roll < f.2;
                    roll = roll.saturating_sub(f.2);
                    hit
                })
                .map_or('f', |f| f.0);
            // A blob: a short random walk, kept off the two columns of the west zone.
            let (mut x, mut y) = (2 + rng.below(half - 2), rng.below(height));
            for _ in 0..1 + rng.below(5) {
                rows[y][x] = symbol;
                match rng.below(4) {
                    0 if x + 1 < half => x += 1,
                    1 if x > 2 => x -= 1,
                    2 if y + 1 < height => y += 1,
                    3 if y > 0 => y -= 1,
                    _ => {}
                }
            }
        }
        for row in &mut rows {
            for x in half..width {
                row[x] = row[width - 1 - x];
            }
        }
        Fresh { seed, width, height, rows, zone_top: (height - ZONE_ROWS) / 2 }
    }

    /// The tiles of a side's zone: two columns at its edge.
    fn zone(&self, west: bool) -> Vec<(usize, usize)> {
        let xs = if west { [0, 1] } else { [self.width - 2, self.width - 1] };
        (self.zone_top..self.zone_top + ZONE_ROWS).flat_map(|y| xs.map(|x| (x, y))).collect()
    }

    /// Whether every tile of the east zone is reached from the west zone without [`BLOCKING`].
    fn joined(&self) -> bool {
        let mut seen = vec![vec![false; self.width]; self.height];
        let mut todo = self.zone(true);
        while let Some((x, y)) = todo.pop() {
            if seen[y][x] || BLOCKING.contains(&self.rows[y][x]) {
                continue;
            }
            seen[y][x] = true;
            if x > 0 {
                todo.push((x - 1, y));
            }
            if x + 1 < self.width {
                todo.push((x + 1, y));
            }
            if y > 0 {
                todo.push((x, y - 1));
            }
            if y + 1 < self.height {
                todo.push((x, y + 1));
            }
        }
        self.zone(false).iter().all(|&(x, y)| seen[y][x])
    }

    fn name(&self) -> String {
        format!("fresh-{}", self.seed)
    }

    /// The map file (`*.map.toml`).
    fn map(&self) -> String {
        let mut out = format!(
            "# A fresh mirror field (tests/fresh_fields.rs, seed {}): its own mirror image, column x is column {} - x.\n\
             name = \"Fresh field {}\"\nwidth = {}\nheight = {}\ngrid = 70\nrows = [\n",
            self.seed,
            self.width - 1,
            self.seed,
            self.width,
            self.height
        );
        for row in &self.rows {
            out.push_str(&format!("  \"{}\",\n", row.iter().collect::<String>()));
        }
        out.push_str("]\n\n[legend]\n\".\" = \"Plains\"\n");
        for (symbol, terrain, _) in FEATURES {
            if self.rows.iter().flatten().any(|c| *c == symbol) {
                out.push_str(&format!("\"{symbol}\" = \"{terrain}\"\n"));
            }
        }
        for (name, side, x) in [("west", "attacker", 0), ("east", "defender", self.width - 2)] {
            out.push_str(&format!(
                "\n[[regions]]\nname = \"{name}\"\nkind = \"deployment\"\nside = \"{side}\"\nrect = [{x}, {}, 2, {ZONE_ROWS}]\nunits = 8\n",
                self.zone_top
            ));
        }
        out
    }

    /// The mirror match of `rules` (`ratings` or `v06`) on this field, by night where `night`:
    /// the fixtures' plain file with this field's map.
    fn scenario(&self, rules: &str, night: bool) -> String {
        let plain = std::fs::read_to_string(repo().join(format!("tests/fixtures/mirror/fields/plain-{rules}.oc")))
            .expect("the plain field's file");
        let replaced = |text: String, from: &str, to: &str| {
            assert!(text.contains(from), "plain-{rules}.oc has no `{from}`");
            text.replacen(from, to, 1)
        };
        let when = if night { " by night" } else { "" };
        let mut s = replaced(plain, "map \"plain.map.toml\"", &format!("map \"{}.map.toml\"", self.name()));
        s = replaced(s, "\"Mirror field: Open Plain\"", &format!("\"Mirror field: fresh field {}{when}\"", self.seed));
        if night {
            s = replaced(s, "    rounds 20 then draw\n", "    rounds 20 then draw\n    fog vision 3\n");
        }
        s
    }

    /// Writes the map and its four scenario files into `dir`; their file names.
    fn write(&self, dir: &Path) -> Vec<String> {
        std::fs::write(dir.join(format!("{}.map.toml", self.name())), self.map()).expect("writes the map");
        let mut files = Vec::new();
        for night in [false, true] {
            for rules in ["ratings", "v06"] {
                let file = format!("{}{}-{rules}.oc", self.name(), if night { "-night" } else { "" });
                std::fs::write(dir.join(&file), self.scenario(rules, night)).expect("writes a scenario");
                files.push(file);
            }
        }
        files
    }
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// `oc tournament` of `ais` on `files` in `dir`, `games` a setting from `seed`, as JSON.
fn tournament(dir: &Path, files: &[String], ais: &[&str], games: u64, seed: u64) -> serde_json::Value {
    let (games, seed) = (games.to_string(), seed.to_string());
    let mut args = vec!["tournament", "--ais"];
    args.extend(ais);
    args.extend(["--games", games.as_str(), "--seed", seed.as_str(), "--format", "json"]);
    args.extend(files.iter().map(String::as_str));
    let out = oc(dir, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the tournament's JSON")
}

/// Fresh fields are mirror images whose zones are joined, and the tournament plays all four
/// matches on each (greedy against itself, one seed: every game counted).
#[test]
fn fresh_fields_are_mirror_fields_the_tournament_plays() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut files = Vec::new();
    for seed in 1..=4 {
        let f = Fresh::new(seed);
        for row in &f.rows {
            assert!(row.iter().eq(row.iter().rev()), "fresh field {seed}: a row is not its own mirror image");
        }
        assert!(f.joined(), "fresh field {seed}: its zones are not joined");
        assert!(f.rows.iter().flatten().any(|c| *c != '.'), "fresh field {seed} is a bare plain");
        assert_eq!(f.map(), Fresh::new(seed).map(), "fresh field {seed}: one seed, one field");
        files.extend(f.write(dir.path()));
    }
    let v = tournament(dir.path(), &files, &["greedy", "greedy"], 1, 1);
    assert_every_roster_counted(&v, &files, 4);
}

/// One side's record in a tournament's JSON: won, drawn, lost.
fn record(v: &serde_json::Value) -> [u64; 3] {
    ["won", "drawn", "lost"].map(|k| v[k].as_u64().unwrap_or(0))
}

fn rate([won, drawn, lost]: [u64; 3]) -> f64 {
    100.0 * won as f64 / (won + drawn + lost).max(1) as f64
}

/// The default against greedy (or `OC_FRESH_AIS`) on fresh fields, by day and by night: a table
/// of the first AI's wins, all and on each side, and how many sides reach 70%.
#[test]
#[ignore = "minutes: the measurement of issue 41 on fresh fields"]
fn measure_the_default_on_fresh_fields() {
    let (count, first, games) = (env_or("OC_FRESH_FIELDS", 8), env_or("OC_FRESH_SEED", 1), env_or("OC_FRESH_GAMES", 10));
    let ais_text = std::env::var("OC_FRESH_AIS").unwrap_or_else(|_| "planner greedy".to_string());
    let ais: Vec<&str> = ais_text.split_whitespace().collect();
    assert_eq!(ais.len(), 2, "OC_FRESH_AIS names two AIs");
    let temp = tempfile::tempdir().expect("a temporary folder");
    let dir = std::env::var("OC_FRESH_DIR").map(std::path::PathBuf::from).unwrap_or_else(|_| temp.path().to_path_buf());
    std::fs::create_dir_all(&dir).expect("the folder for the fields");
    println!("`oc tournament FILE --ais {ais_text} --games {games} --seed 7` on fresh fields {first} to {}", first + count - 1);
    println!("(tests/fresh_fields.rs); the wins of {}, moving 1st and 2nd\n", ais[0]);
    println!("| field | size | all | W-D-L | moving 1st | moving 2nd |");
    println!("|---|---|---|---|---|---|");
    // Sides at 70% or more, of all sides: by day, by night.
    let mut sides = [[0u32; 2]; 2];
    // Games won, drawn and lost, of all files: by day, by night.
    let mut totals = [[0u64; 3]; 2];
    let only = std::env::var("OC_FRESH_ONLY").unwrap_or_default();
    for seed in first..first + count {
        let f = Fresh::new(seed);
        for file in f.write(&dir) {
            let night = file.contains("-night");
            if (only == "day" && night) || (only == "night" && !night) {
                continue;
            }
            let v = tournament(&dir, std::slice::from_ref(&file), &ais, games, 7);
            let t = &v["total"];
            let (all, one, two) = (record(&t["a"]), record(&t["a_moving_first"]), record(&t["a_moving_second"]));
            for (total, n) in totals[usize::from(night)].iter_mut().zip(all) {
                *total += n;
            }
            let [at_70, all_sides] = &mut sides[usize::from(night)];
            for side in [one, two] {
                *at_70 += u32::from(rate(side) >= 70.0);
                *all_sides += 1;
            }
            println!(
                "| {} | {}x{} | {:.1}% | {}-{}-{} | {:.1}% | {:.1}% |",
                file.trim_end_matches(".oc"),
                f.width,
                f.height,
                rate(all),
                all[0],
                all[1],
                all[2],
                rate(one),
                rate(two)
            );
        }
    }
    let total = |[won, drawn, lost]: [u64; 3]| format!("{won}-{drawn}-{lost} ({:.1}%)", rate([won, drawn, lost]));
    println!("\nW-D-L of every file: by day {}, by night {}.", total(totals[0]), total(totals[1]));
    println!("Sides at 70% or more: by day {} of {}, by night {} of {}.", sides[0][0], sides[0][1], sides[1][0], sides[1][1]);
}
