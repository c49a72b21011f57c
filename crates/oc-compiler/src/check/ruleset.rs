//! The ruleset: scales, stats and bases collected and typed, tables, the class range, dice and
//! the combat formulas lowered into the model.

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn collect_ruleset(&mut self, items: &[&'a ast::Item]) {
        for item in items {
            let ast::Item::Ruleset(rs) = item else { continue };
            if let Some(first) = self.syms.ruleset {
                self.error(
                    Diagnostic::error(
                        MULTIPLE_RULESETS,
                        rs.name.span,
                        format!("a second ruleset `{}` in one compilation", rs.name.value),
                    )
                    .with_secondary(first.name.span, format!("`{}` is already the ruleset here", first.name.value))
                    .with_help("a file and its imports use one ruleset; move this one to a file that does not import the other"),
                );
                continue;
            }
            self.syms.ruleset = Some(rs);
        }
        let Some(rs) = self.syms.ruleset else { return };
        let mut scale_spans: HashMap<String, Span> = HashMap::new();
        for scale in &rs.scales {
            if let Some(first) = scale_spans.get(scale.name.value.as_str()) {
                self.error(
                    Diagnostic::error(DUPLICATE, scale.name.span, format!("the scale `{}` is defined twice", scale.name.value))
                        .with_secondary(*first, "first defined here")
                        .with_help("rename one of them"),
                );
                continue;
            }
            scale_spans.insert(scale.name.value.to_string(), scale.name.span);
            let mut seen: HashMap<&str, Span> = HashMap::new();
            let mut steps = Vec::new();
            for member in &scale.members {
                if let Some(first) = seen.get(member.value.as_str()) {
                    self.error(
                        Diagnostic::error(
                            SCALE_INVALID,
                            member.span,
                            format!("the step `{}` appears twice in scale `{}`", member.value, scale.name.value),
                        )
                        .with_secondary(*first, "first here")
                        .with_help("list each step once, worst to best"),
                    );
                    continue;
                }
                seen.insert(&member.value, member.span);
                steps.push(member.value.to_string());
            }
            self.syms.scales.push(ScaleSym { name: scale.name.value.to_string(), steps });
        }
        let mut attr_spans: HashMap<String, Span> = HashMap::new();
        for stat in &rs.stats {
            let Some(ty) = self.resolve_type(&stat.ty) else { continue };
            if !matches!(ty, Type::Int | Type::Bool | Type::Scale(_) | Type::Dice) {
                self.error(
                    Diagnostic::error(TYPE_MISMATCH, stat.ty.span, format!("a stat cannot have type `{}`", type_name(&ty)))
                        .with_help("stats are numbers (`Int`), flags (`Bool`), steps of a scale such as `Rating`, or `Dice`"),
                );
                continue;
            }
            if self.dup_attr(&mut attr_spans, &stat.name) {
                self.syms.stats.push(AttrSym { name: stat.name.value.to_string(), ty });
            }
        }
        for base in &rs.bases {
            let Some(ty) = self.resolve_type(&base.ty) else { continue };
            if self.dup_attr(&mut attr_spans, &base.name) {
                self.syms.bases.push(AttrSym { name: base.name.value.to_string(), ty });
            }
        }
        self.collect_resources(rs, &mut attr_spans);
        for dice in &rs.dice {
            let terms: Vec<(bool, &ast::DieLit)> = dice.terms.iter().map(|(n, d)| (*n, d)).collect();
            let shape = self.dice_shape(&terms, dice.constant, dice.span);
            // A shape that failed is still declared (with a d2), so its uses are not reported again.
            self.syms.dice.insert(dice.name.value.to_string(), shape.unwrap_or_else(|| m::DiceShape::d(2)));
        }
        for table in &rs.tables {
            let mut keys = Vec::new();
            for key in &table.keys {
                match self.resolve_type(key) {
                    Some(Type::Scale(s)) => keys.push(s),
                    Some(other) => {
                        self.error(
                            Diagnostic::error(
                                TABLE_KEY,
                                key.span,
                                format!("tables are looked up by scales, not by `{}`", type_name(&other)),
                            )
                            .with_help("use a scale such as `Rating` as the key"),
                        );
                    }
                    None => {}
                }
            }
            let Some(value) = self.resolve_type(&table.value_ty) else { continue };
            if keys.len() == table.keys.len() && !keys.is_empty() {
                self.syms.tables.insert(table.name.value.to_string(), TableSym { keys, value });
            }
        }
        match rs.inventory.as_slice() {
            [] => self.error(
                Diagnostic::error(
                    RULESET_SETTING,
                    rs.name.span,
                    format!("the ruleset `{}` sets no inventory size", rs.name.value),
                )
                .with_help("add `inventory 3` (the seed: units carry up to 3 items)"),
            ),
            [one, rest @ ..] => {
                for extra in rest {
                    self.error(
                        Diagnostic::error(DUPLICATE_FIELD, extra.span, "the inventory size is set twice")
                            .with_secondary(one.span, "first set here")
                            .with_help("keep one `inventory`"),
                    );
                }
                if !(1..=16).contains(&one.value) {
                    self.error(
                        Diagnostic::error(RULESET_SETTING, one.span, format!("an inventory of {} items", one.value))
                            .with_help("inventories hold 1 to 16 items"),
                    );
                } else {
                    self.syms.inventory = one.value as u32;
                }
            }
        }
        if !rs.bases.iter().any(|b| b.name.value == "hp" && b.ty.value == "Int") {
            self.error(
                Diagnostic::error(
                    RULESET_SETTING,
                    rs.name.span,
                    format!("the ruleset `{}` has no `base hp: Int`", rs.name.value),
                )
                .with_help("the engine tracks hit points in the base attribute `hp`: add `base hp: Int = 20`"),
            );
        }
        if rs.stats.is_empty() {
            self.error(
                Diagnostic::error(RULESET_SETTING, rs.name.span, format!("the ruleset `{}` declares no stats", rs.name.value))
                    .with_help("declare what classes provide, e.g. `stat str: Rating \"Strength\"`"),
            );
        }
    }

    pub(crate) fn dup_attr(&mut self, spans: &mut HashMap<String, Span>, name: &ast::Ident) -> bool {
        if let Some(first) = spans.get(name.value.as_str()) {
            self.error(
                Diagnostic::error(DUPLICATE, name.span, format!("the stat or base `{}` is defined twice", name.value))
                    .with_secondary(*first, "first defined here")
                    .with_help("stats and base attributes share one namespace; rename one"),
            );
            return false;
        }
        spans.insert(name.value.to_string(), name.span);
        true
    }

    pub(super) fn lower_ruleset(&mut self) -> m::Ruleset {
        let Some(rs) = self.syms.ruleset else {
            return m::Ruleset {
                name: String::new(),
                doc: None,
                scales: vec![],
                stats: vec![],
                bases: vec![],
                class_ranges: vec![],
                inventory: self.syms.inventory,
                weight: (i64::MIN, i64::MAX),
                dice: vec![],
                tables: vec![],
                combat: vec![],
                resources: vec![],
                turn: m::TurnRules::default(),
                reactions: vec![],
                many_reactions: false,
                basic_tags: vec![],
                gains: vec![],
                courage: None,
                leadership: None,
                situations: None,
                weather: None,
                charging: None,
                formations: None,
                area: None,
            };
        };
        let stats = rs
            .stats
            .iter()
            .filter_map(|s| {
                let ty = self.syms.stat(&s.name.value)?.ty.clone();
                Some(m::Stat { name: s.name.value.to_string(), title: s.title.clone(), ty })
            })
            .collect();
        let mut bases = Vec::new();
        for b in &rs.bases {
            let Some(ty) = self.syms.bases.iter().find(|a| a.name == b.name.value).map(|a| a.ty.clone()) else { continue };
            let Some(value) = self.const_value(&b.value, &ty) else { continue };
            bases.push(m::Base { name: b.name.value.to_string(), title: b.title.clone(), ty, value });
        }
        let mut class_ranges = Vec::new();
        for range in &rs.class_ranges {
            if let Some(r) = self.class_range(range) {
                let num = |v: &m::Value| match v {
                    m::Value::Int(n) => *n,
                    m::Value::Step { index, .. } => i64::from(*index),
                    _ => 0,
                };
                self.syms.class_ranges.push(ClassRangeSym {
                    ty: r.ty.clone(),
                    low: num(&r.low),
                    high: num(&r.high),
                    span: range.span,
                });
                class_ranges.push(r);
            }
        }
        let weight = match rs.weight_ranges.as_slice() {
            [] => (i64::MIN, i64::MAX),
            [one, rest @ ..] => {
                for extra in rest {
                    self.error(
                        Diagnostic::error(DUPLICATE_FIELD, extra.span, "the weight bounds are set twice")
                            .with_secondary(one.span, "first set here")
                            .with_help("keep one `weight LOW..HIGH`"),
                    );
                }
                if one.value.0 > one.value.1 {
                    self.error(
                        Diagnostic::error(
                            RULESET_SETTING,
                            one.span,
                            format!("weight bounds {}..{} are reversed", one.value.0, one.value.1),
                        )
                        .with_help("write the lighter bound first, e.g. `weight -2..2`"),
                    );
                }
                one.value
            }
        };
        let dice = rs
            .dice
            .iter()
            .filter_map(|d| {
                self.syms
                    .dice
                    .get(d.name.value.as_str())
                    .map(|shape| m::Dice { name: d.name.value.to_string(), shape: shape.clone() })
            })
            .collect();
        let tables = rs.tables.iter().filter_map(|t| self.lower_table(t)).collect();
        let combat = self.lower_combat(rs);
        let (resources, turn) = self.lower_turn(rs, &mut bases);
        let reactions = self.lower_reactions(rs, &resources, &combat);
        let gains = self.lower_gains(rs, &resources, &combat);
        let courage = self.lower_courage(rs);
        let (leadership, situations, weather) = (self.lower_leadership(rs), self.lower_situations(rs), self.lower_weather(rs));
        let (charging, formations, area) = (self.lower_charging(rs), self.lower_formations(rs), self.lower_area(rs));
        m::Ruleset {
            name: rs.name.value.to_string(),
            doc: rs.doc.clone(),
            scales: self.syms.scales.iter().map(|s| m::Scale { name: s.name.clone(), steps: s.steps.clone() }).collect(),
            stats,
            bases,
            class_ranges,
            inventory: self.syms.inventory,
            weight,
            dice,
            tables,
            combat,
            resources,
            turn,
            reactions,
            many_reactions: self.reaction_mode(rs),
            basic_tags: self.tag_uses(&rs.basic, m::ThingKind::Class, "the ruleset's basic tags"),
            gains,
            courage,
            leadership,
            situations,
            weather,
            charging,
            formations,
            area,
        }
    }

    /// `reactions one|many`: written at most once.
    fn reaction_mode(&mut self, rs: &ast::Ruleset) -> bool {
        for extra in rs.reaction_modes.iter().skip(1) {
            self.error(
                Diagnostic::error(DUPLICATE_FIELD, extra.span, "`reactions` is set twice")
                    .with_help("keep one `reactions one` or `reactions many`"),
            );
        }
        rs.reaction_modes.first().is_some_and(|m| m.value == "many")
    }

    pub(super) fn class_range(&mut self, range: &ast::ClassRange) -> Option<m::ClassRange> {
        let ty = self.resolve_type(&range.ty)?;
        let bound = |c: &mut Self, b: &Spanned<ast::Bound>| -> Option<(i64, m::Value)> {
            match (&ty, &b.value) {
                (Type::Int, ast::Bound::Int(n)) => Some((*n, m::Value::Int(*n))),
                (Type::Scale(s), ast::Bound::Name(step)) => match c.step_index(s, step) {
                    Some(i) => Some((i64::from(i), m::Value::Step { scale: m::Name::new(s), index: i })),
                    None => {
                        let steps = c.scale(s).map(|v| v.join(" ")).unwrap_or_default();
                        c.error(
                            Diagnostic::error(CLASS_RANGE_INVALID, b.span, format!("`{step}` is not a step of `{s}`"))
                                .with_help(format!("the steps of `{s}` are {steps}")),
                        );
                        None
                    }
                },
                _ => {
                    c.error(
                        Diagnostic::error(
                            CLASS_RANGE_INVALID,
                            b.span,
                            format!("this bound does not fit a `{}` range", type_name(&ty)),
                        )
                        .with_help("a scale range uses steps (`E..A`), an Int range uses numbers (`0..20`)"),
                    );
                    None
                }
            }
        };
        let low = bound(self, &range.low);
        let high = bound(self, &range.high);
        let (low, high) = (low?, high?);
        if low.0 > high.0 {
            self.error(
                Diagnostic::error(CLASS_RANGE_INVALID, range.span, "the class range is reversed")
                    .with_help("write the worst bound first, e.g. `class_range Rating E..A`"),
            );
            return None;
        }
        Some(m::ClassRange { ty, low: low.1, high: high.1 })
    }

    pub(super) fn lower_table(&mut self, t: &ast::TableDef) -> Option<m::Table> {
        let TableSym { keys, value: value_ty } = self.syms.tables.get(t.name.value.as_str())?.clone();
        let sizes: Vec<usize> = keys.iter().map(|k| self.scale(k).map_or(0, Vec::len)).collect();
        let (row_keys, last) = match keys.split_last() {
            Some((last, lead)) if !lead.is_empty() => (lead.to_vec(), Some(last.clone())),
            Some((only, _)) => (vec![only.clone()], None),
            None => return None,
        };
        let width = match &last {
            Some(l) => self.scale(l).map_or(0, Vec::len),
            None => 1,
        };
        let total = sizes.iter().try_fold(1usize, |acc, n| acc.checked_mul(*n)).filter(|n| *n <= crate::MAX_TABLE_CELLS);
        let Some(total) = total else {
            self.error(
                Diagnostic::error(
                    TABLE_SIZE,
                    t.name.span,
                    format!("the table `{}` would have more than {} cells", t.name.value, crate::MAX_TABLE_CELLS),
                )
                .with_label(format!(
                    "{} key(s) of {} steps",
                    sizes.len(),
                    sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(" x ")
                ))
                .with_help("use fewer keys or shorter scales"),
            );
            return None;
        };
        let mut cells: Vec<Option<m::Value>> = vec![None; total];
        let mut seen_rows: HashMap<Vec<u32>, Span> = HashMap::new();
        let mut ok = true;
        for row in &t.rows {
            if row.keys.len() != row_keys.len() {
                self.error(
                    Diagnostic::error(
                        TABLE_ROW,
                        row.span,
                        format!("a row of `{}` needs {} label(s), this one has {}", t.name.value, row_keys.len(), row.keys.len()),
                    )
                    .with_help(format!("label each row with a step of {}", row_keys.join(", then "))),
                );
                ok = false;
                continue;
            }
            let mut index = Vec::new();
            for (key, scale) in row.keys.iter().zip(&row_keys) {
                match self.step_index(scale, &key.value) {
                    Some(i) => index.push(i),
                    None => {
                        let steps = self.scale(scale).map(|v| v.join(" ")).unwrap_or_default();
                        self.error(
                            Diagnostic::error(TABLE_ROW, key.span, format!("`{}` is not a step of `{scale}`", key.value))
                                .with_help(format!("row labels are steps of `{scale}`: {steps}")),
                        );
                        ok = false;
                    }
                }
            }
            if index.len() != row_keys.len() {
                continue;
            }
            if let Some(first) = seen_rows.get(&index) {
                let label: Vec<&str> = row.keys.iter().map(|k| k.value.as_str()).collect();
                self.error(
                    Diagnostic::error(TABLE_ROW, row.span, format!("the row `{}` appears twice", label.join(" ")))
                        .with_secondary(*first, "first here")
                        .with_help("keep one of the two rows"),
                );
                ok = false;
                continue;
            }
            seen_rows.insert(index.clone(), row.span);
            if row.values.len() != width {
                let (span, what) = if row.values.len() > width {
                    let extra = row.values.get(width).map_or(row.span, |v| v.span);
                    (extra.to(row.values.last().map_or(extra, |v| v.span)), "too many")
                } else {
                    (row.values.last().map_or(row.span, |v| v.span), "too few")
                };
                let columns = match &last {
                    Some(l) => format!("one per step of `{l}` ({})", self.scale(l).map(|v| v.join(" ")).unwrap_or_default()),
                    None => "one".to_string(),
                };
                self.error(
                    Diagnostic::error(
                        TABLE_WIDTH,
                        span,
                        format!("{what} values: {} where `{}` needs {width}", row.values.len(), t.name.value),
                    )
                    .with_label(format!("{what} values in this row"))
                    .with_help(format!("each row has {columns}")),
                );
                ok = false;
            }
            let mut flat = 0usize;
            for (i, size) in index.iter().zip(&sizes) {
                flat = flat * size + *i as usize;
            }
            for (col, value) in row.values.iter().take(width).enumerate() {
                let Some(v) = self.literal(value, &value_ty) else {
                    ok = false;
                    continue;
                };
                if let Some(slot) = cells.get_mut(flat * width + col) {
                    *slot = Some(v);
                }
            }
        }
        // Missing rows: every combination of the row keys must be present.
        let row_sizes: Vec<usize> = row_keys.iter().map(|k| self.scale(k).map_or(0, Vec::len)).collect();
        let row_count: usize = row_sizes.iter().product();
        let mut missing = Vec::new();
        for r in 0..row_count {
            let mut rest = r;
            let mut index = vec![0u32; row_sizes.len()];
            for (slot, size) in index.iter_mut().zip(&row_sizes).rev() {
                *slot = (rest % size.max(&1)) as u32;
                rest /= size.max(&1);
            }
            if !seen_rows.contains_key(&index) {
                let label: Vec<String> = index
                    .iter()
                    .zip(&row_keys)
                    .map(|(i, k)| self.scale(k).and_then(|s| s.get(*i as usize)).cloned().unwrap_or_default())
                    .collect();
                missing.push(label.join(" "));
            }
        }
        if !missing.is_empty() {
            self.error(
                Diagnostic::error(
                    TABLE_MISSING_ROW,
                    t.name.span,
                    format!("the table `{}` has no row for {}", t.name.value, missing.join(", ")),
                )
                .with_help(format!("add the missing row(s): `{}: ...`", missing.first().cloned().unwrap_or_default())),
            );
            ok = false;
        }
        if !ok {
            return None;
        }
        Some(m::Table { name: t.name.value.to_string(), keys, value: value_ty, cells: cells.into_iter().flatten().collect() })
    }

    /// A literal in a table cell or ratings block, checked against `ty`.
    pub(super) fn literal(&mut self, lit: &Spanned<ast::Literal>, ty: &Type) -> Option<m::Value> {
        match (ty, &lit.value) {
            (Type::Int, ast::Literal::Int(n)) => Some(m::Value::Int(*n)),
            (Type::Bool, ast::Literal::Bool(b)) => Some(m::Value::Bool(*b)),
            (Type::Scale(s), ast::Literal::Name(step)) if self.step_index(s, step).is_some() => {
                Some(m::Value::Step { scale: m::Name::new(s), index: self.step_index(s, step).unwrap_or(0) })
            }
            (_, found) => {
                let found = match found {
                    ast::Literal::Int(n) => format!("the number {n}"),
                    ast::Literal::Bool(b) => format!("`{b}`"),
                    ast::Literal::Name(n) => format!("`{n}`"),
                    ast::Literal::Dice(..) => "dice".to_string(),
                };
                let want = match ty {
                    Type::Scale(s) => format!("a step of `{s}` ({})", self.scale(s).map(|v| v.join(" ")).unwrap_or_default()),
                    Type::Int => "a number".to_string(),
                    Type::Bool => "`true` or `false`".to_string(),
                    other => format!("a `{}`", type_name(other)),
                };
                self.error(
                    Diagnostic::error(TABLE_VALUE_TYPE, lit.span, format!("expected {want}, found {found}"))
                        .with_help(format!("every value here must be {want}")),
                );
                None
            }
        }
    }

    pub(super) fn lower_combat(&mut self, rs: &ast::Ruleset) -> Vec<m::Formula> {
        let mut out: Vec<m::Formula> = Vec::new();
        let mut visible: HashMap<String, Type> = HashMap::new();
        let mut spans: HashMap<String, Span> = HashMap::new();
        let block_span = rs.combat.first().map_or(rs.name.span, |b| b.span);
        for extra in rs.combat.iter().skip(1) {
            self.error(
                Diagnostic::error(DUPLICATE_FIELD, extra.span, "a second `combat` block")
                    .with_secondary(block_span, "the first one")
                    .with_help("put every formula in one `combat` block"),
            );
        }
        for formula in rs.combat.iter().take(1).flat_map(|b| &b.formulas) {
            let name = formula.name.value.as_str();
            if let Some(first) = spans.get(name) {
                self.error(
                    Diagnostic::error(COMBAT_FORMULA, formula.name.span, format!("the formula `{name}` is defined twice"))
                        .with_secondary(*first, "first here")
                        .with_help("keep one definition"),
                );
                continue;
            }
            let required = REQUIRED_FORMULAS.iter().chain(OPTIONAL_FORMULAS).find(|(n, _)| *n == name).map(|(_, t)| t.clone());
            if required.is_none() && !name.starts_with('_') {
                let known: Vec<&str> = REQUIRED_FORMULAS.iter().map(|(n, _)| *n).collect();
                let help = match did_you_mean(name, known.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`? helper formulas start with `_`"),
                    None => format!("the engine reads {}; name helper formulas `_{name}`", known.join(", ")),
                };
                self.error(
                    Diagnostic::error(COMBAT_FORMULA, formula.name.span, format!("`{name}` is not a combat formula"))
                        .with_help(help),
                );
                continue;
            }
            spans.insert(name.to_string(), formula.name.span);
            let scope = Scope { params: &[], place: Place::Formula, formulas: Some(&visible) };
            let (expr, ty) = self.expr(&formula.value, &scope, required.as_ref());
            let ty = match (required, ty) {
                (Some(want), Some(got)) => {
                    if want != got {
                        self.mismatch(
                            formula.value.span,
                            &want,
                            &got,
                            &format!("the engine reads `{name}` as {}", type_name(&want)),
                        );
                    }
                    want
                }
                (Some(want), None) => want,
                (None, Some(got)) => got,
                (None, None) => continue,
            };
            visible.insert(name.to_string(), ty.clone());
            if self.reads_a_roll(&expr) {
                self.notes.rolling_formulas.insert(name.to_string());
            }
            out.push(m::Formula { name: name.to_string(), ty, expr });
        }
        let missing: Vec<&str> = REQUIRED_FORMULAS.iter().map(|(n, _)| *n).filter(|n| !spans.contains_key(*n)).collect();
        if !missing.is_empty() {
            self.error(
                Diagnostic::error(COMBAT_FORMULA, block_span, format!("the combat rules lack {}", missing.join(", ")))
                    .with_help("the engine evaluates hit, critical, damage, critical_damage and follow_up for every strike"),
            );
        }
        out
    }
}
