//! The advanced rules beside courage (seed 003): `leadership { general TAG  beyond N STATUS  save
//! ROLL }`, `situations { ground ATTR  flank STATUS  rear STATUS }` and `weather DICE { FACE:
//! STATUS ... }`, each played where a scenario says `advanced leadership`, `advanced
//! situations`, `advanced weather`. What they mean in a battle is the engine's
//! (`oc_engine::battle`, advanced.rs).

use oc_diag::{Diagnostic, Spanned};
use oc_model::{self as m, Type};
use oc_syntax::ast;

use crate::codes::*;
use crate::env::Checker;

impl Checker<'_> {
    /// `name` must be a status; reported otherwise.
    fn known_status(&mut self, name: &Spanned<oc_diag::Name>) -> Option<String> {
        if self.syms.tags.get(name.value.as_str()).is_some_and(|s| s.is_status) {
            return Some(name.value.to_string());
        }
        let names = self.syms.tags.order.iter().filter(|t| self.syms.tags.get(t).is_some_and(|s| s.is_status)).cloned().collect();
        self.unknown_in::<()>(UNKNOWN_STATUS, "status", name, names, None);
        None
    }

    fn once<T>(&mut self, values: &[T], span: impl Fn(&T) -> oc_diag::Span, what: &str) {
        for extra in values.iter().skip(1) {
            self.error(
                Diagnostic::error(DUPLICATE_FIELD, span(extra), format!("`{what}` is given twice"))
                    .with_help(format!("keep one `{what}`")),
            );
        }
    }

    /// The ruleset's `leadership` block, if any (one, with a `general`).
    pub(crate) fn lower_leadership(&mut self, rs: &ast::Ruleset) -> Option<m::Leadership> {
        let block = rs.leadership.first()?;
        self.once(&rs.leadership, |b| b.span, "leadership");
        self.once(&block.general, |g| g.span, "general");
        self.once(&block.beyond, |b| b.0.span, "beyond");
        self.once(&block.save, |e| e.span, "save");
        let Some(general) = block.general.first() else {
            self.error(
                Diagnostic::error(MISSING_FIELD, block.span, "a `leadership` block without a `general`")
                    .with_help("name the tag a scenario grants its general: `general TAG`"),
            );
            return None;
        };
        let general = if self.syms.tags.get(general.value.as_str()).is_some_and(|s| !s.is_status) {
            Some(general.value.to_string())
        } else {
            let names = self.syms.tags.order.clone();
            self.unknown_in::<()>(UNKNOWN_TAG, "tag", general, names, None);
            None
        };
        let beyond = match block.beyond.first() {
            None => Some(None),
            Some((n, status)) => {
                let status = self.known_status(status);
                if !(1..=64).contains(&n.value) {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, n.span, format!("a distance of {} tiles is out of range", n.value))
                            .with_help("write a number of tiles from 1 to 64"),
                    );
                    None
                } else {
                    status.map(|s| Some((n.value, s)))
                }
            }
        };
        let save = match block.save.first() {
            None => Some(None),
            Some(e) => self.courage_roll(e, "save").map(Some),
        };
        Some(m::Leadership { general: general?, beyond: beyond?, save: save? })
    }

    /// The ruleset's `situations` block, if any.
    pub(crate) fn lower_situations(&mut self, rs: &ast::Ruleset) -> Option<m::Situations> {
        let block = rs.situations.first()?;
        self.once(&rs.situations, |b| b.span, "situations");
        self.once(&block.ground, |g| g.span, "ground");
        self.once(&block.flank, |g| g.span, "flank");
        self.once(&block.rear, |g| g.span, "rear");
        self.once(&block.blind, |g| g.span, "blind");
        self.once(&block.flying, |g| g.0.span, "flying");
        self.once(&block.mixed, |g| g.span, "mixed");
        let ground = match block.ground.first() {
            None => None,
            Some(a) => match self.syms.bases.iter().find(|b| b.name == a.value.as_str()).map(|b| b.ty.clone()) {
                Some(Type::Int) => Some(a.value.to_string()),
                Some(other) => {
                    self.mismatch(
                        a.span,
                        &Type::Int,
                        &other,
                        "`ground` names the Int attribute that holds the ground's elevation",
                    );
                    None
                }
                None => {
                    let names = self.syms.bases.iter().map(|b| b.name.to_string()).collect();
                    self.unknown_in::<()>(UNKNOWN_STAT, "base attribute", a, names, None);
                    None
                }
            },
        };
        let flank = block.flank.first().and_then(|s| self.known_status(s));
        let rear = block.rear.first().and_then(|s| self.known_status(s));
        let blind = block.blind.first().and_then(|s| self.known_status(s));
        let mixed = block.mixed.first().and_then(|s| self.known_status(s));
        let flying = block.flying.first().and_then(|(tag, status)| {
            let tag = if self.syms.tags.get(tag.value.as_str()).is_some_and(|s| !s.is_status) {
                Some(tag.value.to_string())
            } else {
                let names = self.syms.tags.order.clone();
                self.unknown_in::<()>(UNKNOWN_TAG, "tag", tag, names, None);
                None
            };
            let status = self.known_status(status);
            Some((tag?, status?))
        });
        let empty = block.ground.is_empty()
            && block.flank.is_empty()
            && block.rear.is_empty()
            && block.blind.is_empty()
            && block.flying.is_empty()
            && block.mixed.is_empty();
        if ground.is_none() && flank.is_none() && rear.is_none() && blind.is_none() && flying.is_none() && mixed.is_none() {
            if empty {
                self.error(Diagnostic::error(MISSING_FIELD, block.span, "a `situations` block with no situation").with_help(
                    "give at least one of `ground ATTR`, `flank STATUS`, `rear STATUS`, `blind STATUS`, `flying TAG STATUS`, `mixed STATUS`",
                ));
            }
            return None;
        }
        Some(m::Situations { ground, flank, rear, blind, flying, mixed })
    }

    /// The ruleset's `area` block, if any (one, with a `within`: an Int reading `self`).
    pub(crate) fn lower_area(&mut self, rs: &ast::Ruleset) -> Option<m::Area> {
        let block = rs.area.first()?;
        self.once(&rs.area, |b| b.span, "area");
        self.once(&block.within, |e| e.span, "within");
        let Some(e) = block.within.first() else {
            self.error(
                Diagnostic::error(MISSING_FIELD, block.span, "an `area` block without a `within`")
                    .with_help("say how many tiles around its target an attack strikes: `within self.blast`"),
            );
            return None;
        };
        let params: Vec<(String, Type)> = m::COURAGE_PARAMS.iter().map(|(n, t)| (n.to_string(), t.clone())).collect();
        let scope = crate::expr::Scope::new(oc_model::conformance::Place::Resource, &params);
        let (expr, ty) = self.expr(e, &scope, Some(&Type::Int));
        match ty {
            Some(Type::Int) => Some(m::Area { within: expr }),
            Some(t) => {
                self.mismatch(e.span, &Type::Int, &t, "`within` is how many tiles around its target an attack strikes");
                None
            }
            None => None,
        }
    }

    /// The ruleset's `formations` block, if any (one, with `tags`: tags without parameters).
    pub(crate) fn lower_formations(&mut self, rs: &ast::Ruleset) -> Option<m::Formations> {
        let block = rs.formations.first()?;
        self.once(&rs.formations, |b| b.span, "formations");
        if block.tags.is_empty() {
            self.error(
                Diagnostic::error(MISSING_FIELD, block.span, "a `formations` block without `tags`")
                    .with_help("name the tags whose actions change formation: `tags Phalanx, Line`"),
            );
            return None;
        }
        let mut tags = Vec::new();
        for t in &block.tags {
            match self.syms.tags.get(t.value.as_str()) {
                Some(sig) if !sig.is_status && sig.params.is_empty() => tags.push(t.value.to_string()),
                Some(sig) if !sig.is_status => self.error(
                    Diagnostic::error(
                        TAG_ARG_COUNT,
                        t.span,
                        format!("`{}` takes parameters, which a formation tag is not given", t.value),
                    )
                    .with_help("name a tag without parameters"),
                ),
                _ => {
                    let names = self.tag_names();
                    self.unknown_in::<()>(UNKNOWN_TAG, "tag", t, names, None);
                }
            }
        }
        Some(m::Formations { tags })
    }

    /// The ruleset's `charging` block, if any (one, with a `with`: a Bool reading `self`).
    pub(crate) fn lower_charging(&mut self, rs: &ast::Ruleset) -> Option<m::Charging> {
        let block = rs.charging.first()?;
        self.once(&rs.charging, |b| b.span, "charging");
        self.once(&block.with, |e| e.span, "with");
        let Some(e) = block.with.first() else {
            self.error(
                Diagnostic::error(MISSING_FIELD, block.span, "a `charging` block without a `with`")
                    .with_help("say which units charge: `with self.reach >= 3`"),
            );
            return None;
        };
        let params: Vec<(String, Type)> = m::COURAGE_PARAMS.iter().map(|(n, t)| (n.to_string(), t.clone())).collect();
        let scope = crate::expr::Scope::new(oc_model::conformance::Place::Resource, &params);
        let (expr, ty) = self.expr(e, &scope, Some(&Type::Bool));
        match ty {
            Some(Type::Bool) => Some(m::Charging { with: expr }),
            Some(t) => {
                self.mismatch(e.span, &Type::Bool, &t, "`with` says whether a unit's charge strikes every enemy in contact");
                None
            }
            None => None,
        }
    }

    /// The ruleset's `weather` block, if any: every face of its die has one status.
    pub(crate) fn lower_weather(&mut self, rs: &ast::Ruleset) -> Option<m::Weather> {
        let block = rs.weather.first()?;
        self.once(&rs.weather, |b| b.span, "weather");
        let Some(shape) = self.syms.dice.get(block.dice.value.as_str()).cloned() else {
            let names = self.syms.dice.keys().cloned().collect();
            self.unknown_in::<()>(UNKNOWN_TABLE, "die", &block.dice, names, None);
            return None;
        };
        let faces: Vec<i64> = match shape.distribution() {
            Ok(d) => d.probabilities().filter(|(_, p)| *p > 0.0).map(|(v, _)| v).collect(),
            Err(_) => Vec::new(),
        };
        let mut out: Vec<(i64, String)> = Vec::new();
        let mut ok = true;
        for (n, status) in &block.faces {
            let status = self.known_status(status);
            if !faces.contains(&n.value) {
                self.error(
                    Diagnostic::error(RULESET_WEATHER, n.span, format!("the die `{}` has no face {}", block.dice.value, n.value))
                        .with_help(format!("the die rolls {}", faces_text(&faces))),
                );
                ok = false;
            } else if out.iter().any(|(f, _)| *f == n.value) {
                self.error(
                    Diagnostic::error(RULESET_WEATHER, n.span, format!("face {} has a weather twice", n.value))
                        .with_help("give each face of the die one status"),
                );
                ok = false;
            }
            match status {
                Some(s) => out.push((n.value, s)),
                None => ok = false,
            }
        }
        let missing: Vec<i64> = faces.iter().copied().filter(|f| !out.iter().any(|(n, _)| n == f)).collect();
        if !missing.is_empty() {
            self.error(
                Diagnostic::error(
                    RULESET_WEATHER,
                    block.span,
                    format!("the weather gives no status for {} of the die `{}`", faces_text(&missing), block.dice.value),
                )
                .with_help("give every face of the die a status: `1: Clear  2: Rain ...`"),
            );
            ok = false;
        }
        out.sort_by_key(|(f, _)| *f);
        ok.then(|| m::Weather { dice: block.dice.value.to_string(), faces: out })
    }
}

fn faces_text(faces: &[i64]) -> String {
    let shown: Vec<String> = faces.iter().take(12).map(|f| f.to_string()).collect();
    let more = if faces.len() > 12 { ", ..." } else { "" };
    format!("face{} {}{more}", if faces.len() == 1 { "" } else { "s" }, shown.join(", "))
}
