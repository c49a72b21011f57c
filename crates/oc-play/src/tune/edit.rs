//! What `oc tune` changes, as data (`Setting`) and as text: every setting is written into the
//! scenario file's own text by spans — the numbers it tunes replaced in place, dismissed units'
//! lines removed, hired units' lines added after the army's last — and that text is what gets
//! compiled, played and (with `--write`) written. Every other byte stays as it was.

use oc_model as m;
use oc_syntax::ast;

/// One army as tuned: units of the sample dismissed (by index) and copies of its units hired.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArmyPlan {
    /// Indices into the sample army's units, in the order they were dismissed.
    pub dropped: Vec<usize>,
    /// Hired copies: (the new unit's name, the index of the sample unit copied).
    pub added: Vec<(String, usize)>,
}

/// The values of every knob: the time limit, both war chests and both armies.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setting {
    /// The time limit in rounds; `None`: the scenario has none.
    pub rounds: Option<u32>,
    /// [attacker, defender]
    pub chests: [i64; 2],
    pub armies: [ArmyPlan; 2],
}

impl Setting {
    /// What decides the games played under it: everything but the war chests, which the
    /// engine never reads (they only limit what an army may cost). Settings with the same key
    /// play the same games, so they share them.
    pub fn games_key(&self) -> (Option<u32>, [ArmyPlan; 2]) {
        (self.rounds, self.armies.clone())
    }
}

/// The scenario file as written, with the definitions the knobs edit.
pub struct Base {
    pub text: String,
    pub scenario: ast::ScenarioDef,
    /// [attacker, defender]: the armies played, as written in this file.
    pub armies: [ast::ArmyDef; 2],
    /// The compiled scenario and armies.
    pub model: m::Scenario,
    pub army_models: [m::Army; 2],
}

/// A replacement of the file's bytes `start..end` by `text`: what an editor's code action
/// offers (a range of the file and its new text; the range is in bytes of the text as read,
/// on character boundaries).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Edit {
    fn at(span: oc_diag::Span, text: String) -> Edit {
        let r = span.range();
        Edit { start: r.start, end: r.end, text }
    }
}

/// `text` with `edits` made (back to front, so earlier offsets stay valid; edits never
/// overlap, and one off the text or off a character boundary is left out).
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut edits: Vec<&Edit> = edits.iter().collect();
    edits.sort_by(|a, b| b.start.cmp(&a.start).then(b.end.cmp(&a.end)));
    let mut text = text.to_string();
    for e in edits {
        if e.start <= e.end && e.end <= text.len() && text.is_char_boundary(e.start) && text.is_char_boundary(e.end) {
            text.replace_range(e.start..e.end, &e.text);
        }
    }
    text
}

const SIDES: [m::SideId; 2] = [m::SideId::Attacker, m::SideId::Defender];

impl Base {
    /// The setting the file holds.
    pub fn current(&self) -> Setting {
        Setting {
            rounds: self.model.rounds,
            chests: [self.model.attacker.war_chest, self.model.defender.war_chest],
            armies: [ArmyPlan::default(), ArmyPlan::default()],
        }
    }

    fn side_def(&self, side: m::SideId) -> Option<&ast::SideDef> {
        self.scenario.sides.iter().find(|s| s.side.value == side.word())
    }

    /// The army a plan makes of the sample: its units less the dismissed, plus the hired
    /// copies (named anew, without the scenario's tags: a grant is not copied).
    pub fn army(&self, index: usize, plan: &ArmyPlan) -> m::Army {
        let Some(sample) = self.army_models.get(index) else { return empty_army() };
        let mut army = sample.clone();
        army.units = sample.units.iter().enumerate().filter(|(i, _)| !plan.dropped.contains(i)).map(|(_, u)| u.clone()).collect();
        for (name, template) in &plan.added {
            if let Some(t) = sample.units.get(*template) {
                army.units.push(m::ArmyUnit {
                    name: name.clone(),
                    class: t.class.clone(),
                    items: t.items.clone(),
                    tags: Vec::new(),
                    figures: t.figures,
                    joins: None,
                });
            }
        }
        army
    }

    /// The file's text with `setting` written into it.
    pub fn text(&self, setting: &Setting) -> String {
        apply(&self.text, &self.edits(setting))
    }

    /// The edits that write `setting` into the file's text, in the order of the text.
    pub fn edits(&self, setting: &Setting) -> Vec<Edit> {
        let mut edits = Vec::new();
        self.rounds_edits(setting.rounds, &mut edits);
        for (i, side) in SIDES.iter().enumerate() {
            let (Some(def), Some(chest)) = (self.side_def(*side), setting.chests.get(i)) else { continue };
            if let Some(w) = def.war_chests.first() {
                if w.value != *chest {
                    edits.push(Edit::at(w.span, chest.to_string()));
                }
            }
        }
        for (def, plan) in self.armies.iter().zip(&setting.armies) {
            self.army_edits(def, plan, &mut edits);
        }
        edits.sort_by(|a, b| a.start.cmp(&b.start).then(a.end.cmp(&b.end)));
        edits
    }

    /// `rounds N`, and a `survive N rounds` written with the same N (the same time limit said
    /// twice: it moves with it). A scenario without a time limit gets a `rounds N then draw`
    /// line — what it plays like at the engine's round cap — after its `map` and `regions`.
    fn rounds_edits(&self, rounds: Option<u32>, edits: &mut Vec<Edit>) {
        if rounds == self.model.rounds {
            return;
        }
        let Some(new) = rounds else { return };
        match (self.scenario.rounds.first(), self.model.rounds) {
            (Some((n, _)), Some(old)) => {
                edits.push(Edit::at(n.span, new.to_string()));
                for side in &self.scenario.sides {
                    for cond in &side.wins {
                        tied_survives(cond, i64::from(old), &mut |span| {
                            edits.push(Edit::at(span, new.to_string()));
                        });
                    }
                }
            }
            _ => {
                let after = self.scenario.maps.iter().chain(&self.scenario.regions).map(|s| s.span.range().end).max();
                let at = after.map_or(self.scenario.name.span.range().end, |end| line_end(&self.text, end));
                let anchor = self.scenario.maps.first().map_or(self.scenario.name.span, |m| m.span).range().start;
                let indent = indent_of(&self.text, anchor);
                edits.push(Edit { start: at, end: at, text: format!("{indent}rounds {new} then draw\n") });
            }
        }
    }

    fn army_edits(&self, def: &ast::ArmyDef, plan: &ArmyPlan, edits: &mut Vec<Edit>) {
        for i in &plan.dropped {
            if let Some(u) = def.units.get(*i) {
                let (start, end) = own_line(&self.text, u.span.range());
                edits.push(Edit { start, end, text: String::new() });
            }
        }
        let Some(last) = def.units.last() else { return };
        let span = last.span.range();
        let alone = own_line(&self.text, span.clone()) != (span.start, span.end);
        let at = if alone { line_end(&self.text, span.end) } else { span.end };
        let indent = indent_of(&self.text, span.start);
        let mut lines = String::new();
        for (name, template) in &plan.added {
            let Some(t) = def.units.get(*template) else { continue };
            let items: Vec<&str> = t.items.iter().map(|i| i.value.as_str()).collect();
            let mut entries = Vec::new();
            if let Some(n) = &t.figures {
                entries.push(format!("figures {}", n.value));
            }
            if !items.is_empty() {
                entries.push(format!("items {}", items.join(", ")));
            }
            let body = if entries.is_empty() { String::new() } else { format!(" {{ {} }}", entries.join(" ")) };
            if alone {
                lines.push_str(&format!("{indent}unit {name}: {}{body}\n", t.class.value));
            } else {
                lines.push_str(&format!(" unit {name}: {}{body}", t.class.value));
            }
        }
        if !lines.is_empty() {
            edits.push(Edit { start: at, end: at, text: lines });
        }
    }
}

fn empty_army() -> m::Army {
    m::Army { name: String::new(), title: None, scenario: String::new(), side: m::SideId::Attacker, units: Vec::new() }
}

/// Every `survive N rounds` in a condition whose N is `rounds`.
fn tied_survives(c: &ast::Cond, rounds: i64, found: &mut dyn FnMut(oc_diag::Span)) {
    match c {
        ast::Cond::Survive(n) if n.value == rounds => found(n.span),
        ast::Cond::And(a, b) | ast::Cond::Or(a, b) => {
            tied_survives(a, rounds, found);
            tied_survives(b, rounds, found);
        }
        ast::Cond::Not(a, _) => tied_survives(a, rounds, found),
        _ => {}
    }
}

/// The offset just past the end of the line holding `offset` (past its newline).
fn line_end(text: &str, offset: usize) -> usize {
    text.get(offset..).and_then(|rest| rest.find('\n')).map_or(text.len(), |i| offset + i + 1)
}

/// The offset where the line holding `offset` starts.
fn line_start(text: &str, offset: usize) -> usize {
    text.get(..offset).and_then(|head| head.rfind('\n')).map_or(0, |i| i + 1)
}

/// The whitespace a line starts with.
fn indent_of(text: &str, offset: usize) -> String {
    let start = line_start(text, offset);
    text.get(start..).map(|line| line.chars().take_while(|c| *c == ' ' || *c == '\t').collect()).unwrap_or_default()
}

/// The whole line of `start..end` (with its newline) when nothing else is on it but a comment
/// after it (which goes with it), else the span itself with the blanks after it.
fn own_line(text: &str, span: std::ops::Range<usize>) -> (usize, usize) {
    let (start, end) = (span.start, span.end);
    let (ls, le) = (line_start(text, start), line_end(text, end));
    let before = text.get(ls..start).unwrap_or("x");
    let after = text.get(end..le).unwrap_or("x");
    let rest = after.trim();
    if before.trim().is_empty() && (rest.is_empty() || rest.starts_with("//")) {
        (ls, le)
    } else {
        let blanks = after.len() - after.trim_start_matches([' ', '\t']).len();
        (start, end + blanks)
    }
}

/// A new unit's name: the sample unit's with the next free number (`Spear20` hires `Spear21`,
/// `Bone` hires `Bone2`).
pub fn fresh_name(base: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit());
    let start: u64 = base.get(stem.len()..).and_then(|d| d.parse().ok()).map_or(2, |n: u64| n + 1);
    (start..start + 10_000).map(|n| format!("{stem}{n}")).find(|n| !taken(n)).unwrap_or_else(|| format!("{base}_copy"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_names() {
        let text = "a {\n    unit X: Y\n    unit Z: W { items Q }\n}\n";
        let x = 8;
        assert_eq!(text.get(x..x + 6), Some("unit X"));
        assert_eq!(own_line(text, x..x + 9), (4, 18));
        assert_eq!(indent_of(text, x), "    ");
        assert_eq!(line_end(text, x), 18);
        let taken = |n: &str| ["Spear21", "Bone2"].contains(&n);
        assert_eq!(fresh_name("Spear20", &taken), "Spear22");
        assert_eq!(fresh_name("Bone", &taken), "Bone3");
        assert_eq!(fresh_name("Colm", &taken), "Colm2");
        // A comment after a unit goes with it.
        let text = "    unit A: B  // a note\nx";
        assert_eq!(own_line(text, 4..13), (0, 25));
        // Two units on one line: only the span goes.
        let text = "unit A: B unit C: D\n";
        assert_eq!(own_line(text, 0..9), (0, 10));
    }
}
