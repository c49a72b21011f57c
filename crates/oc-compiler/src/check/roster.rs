//! The roster: classes (ratings against the class range, forms, what they wield, kits) and
//! items (weapons, accessories, consumables, their ranges), with the warnings about weapons
//! nobody can wield.

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn ratings(&mut self, blocks: &[ast::RatingsBlock], owner: &ast::Ident, what: &str) -> m::Ratings {
        let Some(block) = blocks.first() else { return m::Ratings::new() };
        let mut out = m::Ratings::with_capacity(block.entries.len());
        for extra in blocks.iter().skip(1) {
            self.error(
                Diagnostic::error(DUPLICATE_FIELD, extra.span, "a second `ratings` block")
                    .with_secondary(block.span, "the first one")
                    .with_help("give every rating in one block"),
            );
        }
        // Where each stat (by its place in `stats`) was rated.
        let mut spans: Vec<Option<Span>> = vec![None; self.syms.stats.len()];
        // Stats a misspelt entry was meant to be (`rez` for `res`): that one is reported, not also missing.
        let mut meant: Vec<String> = Vec::new();
        for (stat, value) in &block.entries {
            let Some((index, ty)) =
                self.syms.stats.iter().enumerate().find(|(_, a)| a.name == stat.value).map(|(k, a)| (k, a.ty.clone()))
            else {
                let names: Vec<String> = self.syms.stats.iter().map(|a| a.name.clone()).collect();
                meant.extend(did_you_mean(&stat.value, names.iter().map(String::as_str)).map(str::to_string));
                self.unknown_in::<()>(UNKNOWN_STAT, "stat", stat, names, None);
                continue;
            };
            if let Some(first) = spans.get(index).copied().flatten() {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, stat.span, format!("`{}` is rated twice", stat.value))
                        .with_secondary(first, "first here")
                        .with_help("keep one value per stat"),
                );
                continue;
            }
            if let Some(slot) = spans.get_mut(index) {
                *slot = Some(stat.span);
            }
            let lowered = match (&ty, &value.value) {
                (Type::Scale(s), ast::Literal::Name(step)) => {
                    self.step_index(s, step).map(|index| m::Value::Step { scale: m::Name::new(s), index })
                }
                (Type::Int, ast::Literal::Int(n)) => Some(m::Value::Int(*n)),
                (Type::Bool, ast::Literal::Bool(b)) => Some(m::Value::Bool(*b)),
                (Type::Dice, ast::Literal::Int(n)) => Some(m::Value::Dice(m::DiceShape { terms: Vec::new(), constant: *n })),
                (Type::Dice, ast::Literal::Dice(terms, constant)) => {
                    let terms: Vec<(bool, &ast::DieLit)> = terms.iter().map(|(n, d)| (*n, d)).collect();
                    // A shape that cannot be enumerated was reported with its own code.
                    let Some(shape) = self.dice_shape(&terms, *constant, value.span) else { continue };
                    Some(m::Value::Dice(shape))
                }
                _ => None,
            };
            let Some(lowered) = lowered else {
                let want = match &ty {
                    // The steps a class may give (within the ruleset's class ranges for the
                    // scale): the others are refused next, as out of range for a class.
                    Type::Scale(s) => {
                        let steps = self.scale(s).cloned().unwrap_or_default();
                        let allowed: Vec<&String> = (0i64..)
                            .zip(&steps)
                            .filter(|(k, _)| {
                                self.syms.class_ranges.iter().filter(|r| r.ty == ty).all(|r| r.low <= *k && *k <= r.high)
                            })
                            .map(|(_, step)| step)
                            .collect();
                        let near = match &value.value {
                            // (One letter is one edit from every other: no guess.)
                            ast::Literal::Name(given) if given.chars().count() > 1 => {
                                oc_diag::did_you_mean(given, allowed.iter().map(|s| s.as_str())).map(str::to_string)
                            }
                            _ => None,
                        };
                        let listed = allowed.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ");
                        let of_class = if allowed.len() < steps.len() { " a class may give" } else { "" };
                        match near {
                            Some(near) => format!("a step of `{s}`{of_class}: {listed} (did you mean `{near}`?)"),
                            None => format!("a step of `{s}`{of_class}: {listed}"),
                        }
                    }
                    other => format!("a {}", type_name(other)),
                };
                self.error(
                    Diagnostic::error(
                        CLASS_BAD_RATING,
                        value.span,
                        format!("`{}` is not a valid {} rating", literal_text(&value.value), stat.value),
                    )
                    .with_help(format!("`{}` takes {want}", stat.value)),
                );
                continue;
            };
            self.check_class_range(&lowered, &ty, value.span, &stat.value);
            out.insert(stat.value.as_str(), lowered);
        }
        let missing: Vec<&str> = self
            .syms
            .stats
            .iter()
            .zip(&spans)
            .filter(|(_, rated)| rated.is_none())
            .map(|(a, _)| a.name.as_str())
            .filter(|n| !meant.iter().any(|m| m == n))
            .collect();
        if !missing.is_empty() {
            let missing = missing.join(", ");
            self.error(
                Diagnostic::error(
                    CLASS_MISSING_RATING,
                    block.span,
                    format!("{what} `{}` has no rating for {missing}", owner.value),
                )
                .with_help(format!("add {missing} to its `ratings` block")),
            );
        }
        out
    }

    pub(super) fn check_class_range(&mut self, value: &m::Value, ty: &Type, span: Span, stat: &str) {
        let v = match value {
            m::Value::Int(n) => *n,
            m::Value::Step { index, .. } => i64::from(*index),
            _ => return,
        };
        // Only the ranges it falls outside (most values fall inside all: no list is built).
        let ranges: Vec<(i64, i64, Span)> = self
            .syms
            .class_ranges
            .iter()
            .filter(|r| r.ty == *ty && (v < r.low || v > r.high))
            .map(|r| (r.low, r.high, r.span))
            .collect();
        for (lo, hi, range_span) in ranges {
            let shown = |n: i64| match ty {
                Type::Scale(s) => self.scale(s).and_then(|v| v.get(n as usize)).cloned().unwrap_or_default(),
                _ => n.to_string(),
            };
            let (lo_s, hi_s, v_s) = (shown(lo), shown(hi), shown(v));
            self.error(
                Diagnostic::error(CLASS_RATING_RANGE, span, format!("a class cannot give {stat} {v_s}: class defaults range {lo_s}..{hi_s}"))
                    .with_label(format!("outside {lo_s}..{hi_s}"))
                    .with_secondary(range_span, "the ruleset's class range")
                    .with_help(format!(
                        "use a rating from {lo_s} to {hi_s}; reach {v_s} in play through modifiers such as Bonus({stat}{}1) on a weapon",
                        if v > hi { "+" } else { "-" }
                    )),
            );
        }
    }

    pub(super) fn wields(&mut self, names: &[ast::Ident]) -> Vec<m::Name> {
        let mut out = Vec::with_capacity(names.len());
        for n in names {
            if self.syms.weapon_types.contains(&n.value) {
                if !out.contains(&n.value) {
                    out.push(n.value.clone());
                }
            } else {
                self.unknown_weapon_type(n);
            }
        }
        out
    }

    /// The classes, each holding the ruleset's `basic` tags after its own (`basic`).
    pub(super) fn lower_classes(&mut self, basic: &[m::TagUse]) -> Vec<m::Class> {
        let mut out = Vec::with_capacity(self.syms.classes.order.len());
        for i in 0..self.class_defs.len() {
            // First definitions only, in order: a repeat was reported.
            let Some(held) = self.class_defs.get(i).filter(|h| self.syms.classes.first(h, i)).cloned() else { continue };
            let Some(c) = self.tree(&held) else { continue };
            let c: &ast::ClassDef = &c;
            for w in
                c.wields.iter().chain(c.normal.iter().flat_map(|f| &f.wields)).chain(c.transformed.iter().flat_map(|f| &f.wields))
            {
                self.notes.wielded.insert(w.value.clone());
            }
            let is_shifter = c.tags.iter().any(|t| self.notes.shifter_tags.contains(t.name.value.as_str()));
            let mut tags = self.tag_uses(&c.tags, m::ThingKind::Class, &c.name.value);
            for b in basic {
                if !tags.iter().any(|t| t.tag == b.tag) {
                    tags.push(b.clone());
                }
            }
            let mut wields = self.wields(&c.wields);
            let mut ratings = self.ratings(&c.ratings, &c.name, "the class");
            let forms = match (&c.normal, &c.transformed) {
                (Some(n), Some(t)) => {
                    if !is_shifter {
                        self.error(
                            Diagnostic::error(
                                CLASS_SHIFTER,
                                n.span,
                                format!("`{}` has shifter forms but no shifter tag", c.name.value),
                            )
                            .with_help("add `tags Shifter` so the forms are used, or remove the forms"),
                        );
                    }
                    let normal = self.form(n, &c.name, "the normal form of");
                    let transformed = self.form(t, &c.name, "the transformed form of");
                    Some(Box::new(m::ShifterForms { normal, transformed }))
                }
                (one, other) if is_shifter || one.is_some() || other.is_some() => {
                    let missing = match (one, other) {
                        (None, None) => "a `normal { ... }` and a `transformed { ... }` form",
                        (None, _) => "a `normal { ... }` form",
                        _ => "a `transformed { ... }` form",
                    };
                    self.error(
                        Diagnostic::error(CLASS_SHIFTER, c.name.span, format!("the shifter class `{}` lacks {missing}", c.name.value))
                            .with_help("shifters build on their Transformed state and record their Normal state: give both forms with full ratings"),
                    );
                    None
                }
                _ => None,
            };
            if c.ratings.is_empty() {
                match &forms {
                    // A shifter is built on its transformed stat block (seed: "build using the appropriate Transformed state").
                    Some(f) => {
                        ratings = f.transformed.ratings.clone();
                        if wields.is_empty() {
                            wields = f.transformed.wields.clone();
                        }
                    }
                    None if c.normal.is_none() && c.transformed.is_none() && !is_shifter => {
                        self.error(
                            Diagnostic::error(
                                MISSING_FIELD,
                                c.name.span,
                                format!("the class `{}` has no `ratings`", c.name.value),
                            )
                            .with_help("add a `ratings { ... }` block with every stat of the ruleset"),
                        );
                    }
                    None => {}
                }
            }
            self.at_most_one(&c.costs, "cost");
            let cost = match c.costs.first() {
                Some(cost) if cost.value >= 0 => cost.value,
                Some(cost) => {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, cost.span, "a negative cost").with_help("costs are 0 gold or more"),
                    );
                    0
                }
                None => {
                    self.error(
                        Diagnostic::error(MISSING_FIELD, c.name.span, format!("the class `{}` has no `cost`", c.name.value))
                            .with_help("add `cost N`: the gold it takes to hire a unit of this class"),
                    );
                    0
                }
            };
            let promoted_from = c.promoted.as_ref().and_then(|p| p.from.as_ref()).and_then(|from| {
                if self.syms.classes.contains(&from.value) {
                    Some(from.value.to_string())
                } else {
                    let names = self.syms.classes.names();
                    self.unknown_in::<()>(UNKNOWN_CLASS, "class", from, names, None);
                    None
                }
            });
            let kit = self.kit(c, &wields);
            out.push(m::Class {
                name: c.name.value.clone(),
                title: c.title.clone(),
                doc: c.doc.clone(),
                ratings,
                wields,
                tags,
                cost,
                promoted: c.promoted.is_some(),
                promoted_from,
                kit,
                forms,
            });
        }
        out
    }

    pub(super) fn form(&mut self, f: &ast::Form, owner: &ast::Ident, what: &str) -> m::Form {
        let tags = self.tag_uses(&f.tags, m::ThingKind::Class, &owner.value);
        let wields = self.wields(&f.wields);
        let ratings = if f.ratings.is_empty() {
            self.error(
                Diagnostic::error(CLASS_MISSING_RATING, f.span, format!("{what} `{}` has no ratings", owner.value))
                    .with_help("each form needs a full `ratings { ... }` block"),
            );
            m::Ratings::new()
        } else {
            self.ratings(&f.ratings, owner, what)
        };
        m::Form { ratings, wields, tags }
    }

    pub(super) fn kit(&mut self, c: &ast::ClassDef, wields: &[m::Name]) -> Vec<String> {
        let mut out = Vec::with_capacity(c.kit.len());
        for name in &c.kit {
            let Some(index) = self.syms.items.get(name.value.as_str()) else {
                let names = self.syms.items.names();
                self.unknown_in::<()>(UNKNOWN_ITEM, "item", name, names, None);
                continue;
            };
            if let Some(Some((kind, Some(ty)))) = self.notes.item_types.get(index) {
                if *kind == ast::ItemKind::Weapon && !wields.contains(&ty.value) {
                    self.error(
                        Diagnostic::error(
                            CLASS_KIT,
                            name.span,
                            format!(
                                "`{}` cannot use `{}`: it is {} and the class wields {}",
                                c.name.value,
                                name.value,
                                ty.value,
                                if wields.is_empty() { "nothing".to_string() } else { wields.join(", ") }
                            ),
                        )
                        .with_help("pick a weapon of a type the class wields, or add the type to `wields`"),
                    );
                }
            }
            self.notes.kits.push((c.name.value.to_string(), name.value.to_string(), name.span));
            out.push(name.value.to_string());
        }
        if out.len() > self.syms.inventory as usize {
            let span = c.kit.first().map_or(c.name.span, |f| f.span.to(c.kit.last().map_or(f.span, |l| l.span)));
            self.error(
                Diagnostic::error(
                    CLASS_KIT,
                    span,
                    format!("a kit of {} items, but units carry at most {}", out.len(), self.syms.inventory),
                )
                .with_help(format!(
                    "the ruleset's inventory holds {} items: remove {}",
                    self.syms.inventory,
                    out.len() - self.syms.inventory as usize
                )),
            );
        }
        out
    }

    pub(super) fn lower_items(&mut self, lowered_tags: &[m::Tag]) -> Vec<m::Item> {
        let mut out = Vec::with_capacity(self.syms.items.order.len());
        let (wlo, whi) = self.syms.ruleset.and_then(|r| r.weight_ranges.first()).map_or((i64::MIN, i64::MAX), |w| w.value);
        let weight_span = self.syms.ruleset.and_then(|r| r.weight_ranges.first()).map(|w| w.span);
        for index in 0..self.item_defs.len() {
            let Some(held) = self.item_defs.get(index).filter(|h| self.syms.items.first(h, index)).cloned() else { continue };
            let Some(it) = self.tree(&held) else { continue };
            let it: &ast::ItemDef = &it;
            if let Some(slot) = self.notes.item_types.get_mut(index) {
                *slot = Some((it.kind, it.weapon_type.first().cloned()));
            }
            let kind = match it.kind {
                ast::ItemKind::Weapon => m::ThingKind::Weapon,
                ast::ItemKind::Accessory => m::ThingKind::Accessory,
                ast::ItemKind::Consumable => m::ThingKind::Consumable,
            };
            let word = it.kind.word();
            if it.kind != ast::ItemKind::Weapon {
                for (field, span) in it
                    .weapon_type
                    .iter()
                    .map(|t| ("type", t.span))
                    .chain(it.might.iter().map(|m| ("might", m.span)))
                    .chain(it.range.iter().map(|r| ("range", r.span)))
                {
                    self.error(
                        Diagnostic::error(FIELD_NOT_ALLOWED, span, format!("{} has no `{field}`", article(word))).with_help(
                            format!("only weapons have `{field}`; make `{}` a weapon or remove the field", it.name.value),
                        ),
                    );
                }
            }
            if it.kind != ast::ItemKind::Consumable {
                if let Some(first) = it.uses.first().and_then(|u| u.first()) {
                    self.error(
                        Diagnostic::error(FIELD_NOT_ALLOWED, stmt_span(first), format!("{} has no `use`", article(word)))
                            .with_help("only consumables are used up; give weapons and accessories tags or modifiers"),
                    );
                }
            }
            self.at_most_one(&it.weapon_type, "type");
            self.at_most_one(&it.might, "might");
            self.at_most_one(&it.weight, "weight");
            self.at_most_one(&it.costs, "cost");
            let weapon_type = it.weapon_type.first().and_then(|t| {
                if self.syms.weapon_types.contains(&t.value) {
                    Some(t.value.clone())
                } else {
                    self.unknown_weapon_type(t);
                    None
                }
            });
            if it.kind == ast::ItemKind::Weapon && it.weapon_type.is_empty() {
                self.error(
                    Diagnostic::error(MISSING_FIELD, it.name.span, format!("the weapon `{}` has no `type`", it.name.value))
                        .with_help(format!("add `type T` with one of: {}", self.syms.weapon_types.order.join(", "))),
                );
            }
            let weight = it.weight.first().map_or(0, |w| w.value);
            if let Some(w) = it.weight.first() {
                if w.value < wlo || w.value > whi {
                    let mut d =
                        Diagnostic::error(ITEM_WEIGHT_RANGE, w.span, format!("a weight of {} is outside {wlo}..{whi}", w.value))
                            .with_label(format!("must be within {wlo}..{whi}"))
                            .with_help("weight shifts Speed by that many steps; the ruleset allows -2 (light) to 2 (heavy)");
                    if let Some(ws) = weight_span {
                        d = d.with_secondary(ws, "the ruleset's weight bounds");
                    }
                    self.error(d);
                }
            }
            let range = match (it.kind, it.range.first()) {
                (ast::ItemKind::Weapon, None) => {
                    self.error(
                        Diagnostic::error(MISSING_FIELD, it.name.span, format!("the weapon `{}` has no `range`", it.name.value))
                            .with_help("add `range 1` (melee), `range 1..2` or `range 1..staff_range[self.mag]`"),
                    );
                    None
                }
                (ast::ItemKind::Weapon, Some(r)) => self.range(r),
                _ => None,
            };
            self.at_most_one_range(&it.range);
            let tags = self.tag_uses(&it.tags, kind, &it.name.value);
            if it.kind == ast::ItemKind::Consumable {
                self.inert_on_consumable(it, lowered_tags);
            }
            let cost = match it.costs.first() {
                Some(c) if c.value >= 0 => c.value,
                Some(c) => {
                    self.error(Diagnostic::error(NUMBER_RANGE, c.span, "a negative cost").with_help("costs are 0 gold or more"));
                    0
                }
                None => {
                    self.error(
                        Diagnostic::error(MISSING_FIELD, it.name.span, format!("the {word} `{}` has no `cost`", it.name.value))
                            .with_help("add `cost N`: its price in gold when outfitting a unit"),
                    );
                    0
                }
            };
            let scope = Scope::new(Place::Use, &[]);
            let uses = it.uses.iter().flat_map(|u| self.effects(u, &scope, true)).collect();
            for u in &it.uses {
                self.check_contexts(u, Context::Use);
            }
            let modifiers = self.effects(&it.modifiers, &scope.at(Place::Standing), false);
            self.check_contexts(&it.modifiers, Context::Always);
            out.push(m::Item {
                name: it.name.value.clone(),
                kind: match it.kind {
                    ast::ItemKind::Weapon => m::ItemKind::Weapon,
                    ast::ItemKind::Accessory => m::ItemKind::Accessory,
                    ast::ItemKind::Consumable => m::ItemKind::Consumable,
                },
                title: it.title.clone(),
                doc: it.doc.clone(),
                weapon_type,
                might: it.might.first().map_or(0, |m| m.value),
                weight,
                range,
                tags,
                cost,
                uses,
                modifiers,
            });
        }
        out
    }

    pub(super) fn at_most_one_range(&mut self, ranges: &[ast::RangeSpec]) {
        let spans: Vec<Span> = ranges.iter().map(|r| r.span).collect();
        self.given_once(&spans, "range", "keep one `range`");
    }

    pub(super) fn range(&mut self, r: &ast::RangeSpec) -> Option<m::Range> {
        let scope = Scope::new(Place::Standing, &[]);
        let (min, min_ty) = self.expr(&r.min, &scope, Some(&Type::Int));
        let (max, max_ty) = match &r.max {
            Some(e) => self.expr(e, &scope, Some(&Type::Int)),
            None => (min.clone(), min_ty.clone()),
        };
        for (ty, span) in [(min_ty, r.min.span), (max_ty, r.max.as_ref().map_or(r.min.span, |e| e.span))] {
            if let Some(ty) = ty {
                if ty != Type::Int {
                    self.mismatch(span, &Type::Int, &ty, "a range is a number of tiles");
                    return None;
                }
            }
        }
        if let (m::Expr::Const(m::Value::Int(lo)), m::Expr::Const(m::Value::Int(hi))) = (&min, &max) {
            if *lo < 0 || lo > hi {
                self.error(
                    Diagnostic::error(ITEM_RANGE, r.span, format!("the range {lo}..{hi} is empty"))
                        .with_help("write the nearer bound first, both 0 or more: `range 1..2`"),
                );
                return None;
            }
        }
        Some(m::Range { min, max })
    }

    /// A kit's item exclusive to another class (seed 000's Exclusive(Class): "Can only be used
    /// by the tagged Class"): the class could never use what it is hired with. Checked once the
    /// items are lowered, with the armies' own rule (`scenario::armies::item_refusals`).
    pub(super) fn exclusive_kits(&mut self, items: &[m::Item]) {
        for (class, item, span) in std::mem::take(&mut self.notes.kits) {
            let Some(it) = items.iter().find(|i| i.name == item) else { continue };
            for name in it.exclusive_to().filter(|n| n.as_str() != class) {
                self.error(
                    Diagnostic::error(CLASS_KIT, span, format!("`{class}` cannot use `{item}`: it is exclusive to {name}"))
                        .with_help(format!("hire a {class} with an item it may use, or give `{item}` to a {name}")),
                );
            }
        }
    }

    pub(super) fn unwieldable_warnings(&mut self) {
        let mut warnings = Vec::new();
        for name in &self.syms.items.order {
            let Some(Some((kind, Some(t)))) = self.syms.items.get(name).and_then(|i| self.notes.item_types.get(i)) else {
                continue;
            };
            if *kind != ast::ItemKind::Weapon {
                continue;
            }
            if self.syms.weapon_types.contains(&t.value) && !self.notes.wielded.contains(&t.value) {
                warnings.push(
                    Diagnostic::warning(
                        ITEM_UNWIELDABLE,
                        t.span,
                        format!("no class can wield `{name}`: nothing wields {}", t.value),
                    )
                    .with_help(format!("add {} to some class's `wields`, or change the weapon's type", t.value)),
                );
            }
        }
        self.sink.diags.extend(warnings);
    }
}
