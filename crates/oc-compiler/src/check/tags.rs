//! Tags and statuses lowered into the model, and their uses: arguments checked against the
//! parameters as constants (stat modifiers, names of the right kind), with examples for help
//! lines.

use super::*;

impl<'a> Checker<'a> {
    /// The names of the tags declared (not the statuses), for a "did you mean" of a tag.
    pub(crate) fn tag_names(&self) -> Vec<String> {
        self.syms.tags.order.iter().filter(|n| self.syms.tags.get(n).is_some_and(|s| !s.is_status)).cloned().collect()
    }

    pub(super) fn lower_tags(&mut self, items: &[&'a ast::Item]) -> Vec<m::Tag> {
        let mut out = Vec::new();
        for item in items {
            let ast::Item::Tag(t) = item else { continue };
            let Some(sig) = self.syms.tags.get(t.name.value.as_str()).cloned() else { continue };
            if sig.is_status {
                continue;
            }
            if self.syms.tags.map.get(t.name.value.as_str()).map(|(s, _)| *s) != Some(t.name.span) {
                continue; // a duplicate, already reported
            }
            let scope = Scope::new(Place::Standing, &sig.params);
            let effects = self.effects(&t.body, &scope, true);
            self.check_contexts(&t.body, Context::Always);
            out.push(m::Tag {
                name: t.name.value.to_string(),
                params: sig.params.iter().map(|(n, ty)| m::Param { name: n.clone(), ty: ty.clone() }).collect(),
                stacks: sig.stacks,
                applies_to: sig.kinds.clone(),
                doc: t.doc.clone(),
                effects,
            });
        }
        out
    }

    pub(super) fn lower_statuses(&mut self, items: &[&'a ast::Item]) -> Vec<m::Status> {
        let mut out = Vec::new();
        for item in items {
            let ast::Item::Status(s) = item else { continue };
            if self.syms.tags.map.get(s.name.value.as_str()).map(|(sp, _)| *sp) != Some(s.name.span) {
                continue;
            }
            let scope = Scope::new(Place::Standing, &[]);
            let effects = self.effects(&s.body, &scope, false);
            self.check_contexts(&s.body, Context::Always);
            let mut clears = Vec::new();
            // A clear check is rolled at its event (`clears when roll(d10) <= 5`).
            let clear_scope = scope.at(Place::Clear);
            for c in &s.clears {
                self.check_timed_event(&c.event, Timed::Clears);
                let condition = c.condition.as_ref().map(|e| {
                    let (expr, ty) = self.expr(e, &clear_scope, Some(&Type::Bool));
                    if let Some(ty) = ty {
                        if ty != Type::Bool {
                            self.mismatch(e.span, &Type::Bool, &ty, "`clears when` needs a condition such as `roll(d10) <= 5`");
                        }
                    }
                    expr
                });
                if let Some(event) = m::Event::from_name(&c.event.value) {
                    clears.push(m::Clear { condition, event });
                }
            }
            // One duration a status: a second replaced the first.
            let lasts: Vec<Span> = s.lasts.iter().map(|l| l.count.span.to(l.unit.span)).collect();
            self.given_once(&lasts, "lasts", "a status lasts one number of activations or rounds: keep one `lasts`");
            let mut lasts = None;
            for l in &s.lasts {
                if l.count.value < 1 || l.count.value > 99 {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, l.count.span, "a status lasts 1 to 99 activations or rounds")
                            .with_help("use a count from 1 to 99"),
                    );
                    continue;
                }
                let n = l.count.value as u32;
                lasts = Some(if l.unit.value.starts_with("activation") {
                    m::Duration::Activations(n)
                } else {
                    m::Duration::Rounds(n)
                });
            }
            out.push(m::Status { name: s.name.value.to_string(), effects, clears, lasts });
        }
        out
    }

    /// Checks a list of tag uses on a thing of `kind` and returns them lowered.
    pub fn tag_uses(&mut self, uses: &[ast::TagRef], kind: m::ThingKind, owner: &str) -> Vec<m::TagUse> {
        let mut out: Vec<m::TagUse> = Vec::with_capacity(uses.len());
        // Where each use in `out` was written (a thing has a few tags: searched, not hashed).
        let mut spans: Vec<Span> = Vec::with_capacity(uses.len());
        for u in uses {
            let Some(sig) = self.syms.tags.get(u.name.value.as_str()).cloned() else {
                let names = self.tag_names();
                self.unknown_in::<()>(UNKNOWN_TAG, "tag", &u.name, names, None);
                continue;
            };
            if sig.is_status {
                self.error(
                    Diagnostic::error(TAG_WRONG_KIND, u.name.span, format!("`{}` is a status effect, not a tag", u.name.value))
                        .with_help(format!(
                            "statuses are applied in battle; to inflict it on hit, use `Status({})` on a weapon",
                            u.name.value
                        )),
                );
                continue;
            }
            if !sig.kinds.is_empty() && !sig.kinds.contains(&kind) {
                let allowed: Vec<&str> = sig.kinds.iter().map(|k| kind_word(*k)).collect();
                self.error(
                    Diagnostic::error(
                        TAG_WRONG_KIND,
                        u.span,
                        format!("`{}` is for {}, not for a {}", u.name.value, allowed.join(" or "), kind_word(kind)),
                    )
                    .with_label(format!("used on the {} `{owner}`", kind_word(kind)))
                    .with_help(format!("move `{}` to a {}", u.name.value, allowed.join(" or "))),
                );
            }
            let Some(mut args) = self.const_args(u, &sig) else { continue };
            args.shrink_to_fit();
            // Tags about other things (Effective(Armored), Effective(Cavalry)) may appear once per argument.
            let about_things = sig.params.iter().any(|(_, t)| {
                matches!(t, Type::Tag | Type::Class | Type::WeaponType | Type::Status | Type::Terrain | Type::Movement)
            });
            let clash = out
                .iter()
                .zip(&spans)
                .find(|(prev, _)| prev.tag == u.name.value && (!about_things || prev.args == args))
                .map(|(_, s)| *s);
            if let (Some(first), false) = (clash, sig.stacks) {
                self.error(
                    Diagnostic::error(
                        TAG_NOT_STACKABLE,
                        u.span,
                        format!("`{}` is used twice on `{owner}` but does not stack", u.name.value),
                    )
                    .with_secondary(first, "first use")
                    .with_help("remove one use; only tags declared `stacks` (like Lucky) add up"),
                );
                continue;
            }
            spans.push(u.span);
            out.push(m::TagUse { tag: u.name.value.clone(), args });
        }
        out
    }

    pub(super) fn const_args(&mut self, u: &ast::TagRef, sig: &TagSig) -> Option<Vec<m::Value>> {
        if !self.arg_count_ok(u, sig) {
            return None;
        }
        let mut args = Vec::with_capacity(u.args.len());
        for (arg, (pname, ty)) in u.args.iter().zip(&sig.params) {
            match self.const_arg(arg, ty, &u.name.value, pname) {
                Some(v) => args.push(v),
                None => return None,
            }
        }
        Some(args)
    }

    pub fn arg_count_ok(&mut self, u: &ast::TagRef, sig: &TagSig) -> bool {
        if u.args.len() == sig.params.len() {
            return true;
        }
        let shape: Vec<String> = sig.params.iter().map(|(n, t)| format!("{n}: {}", type_name(t))).collect();
        let usage = if shape.is_empty() { u.name.value.to_string() } else { format!("{}({})", u.name.value, shape.join(", ")) };
        let help = match self.tag_usage_example(&u.name.value, sig) {
            (example, Some(owner)) => format!("write `{example}`, as `{owner}` does (the tag is `{usage}`)"),
            (example, None) if example != usage => format!("write `{example}` (the tag is `{usage}`)"),
            (example, None) => format!("write `{example}`"),
        };
        self.error(
            Diagnostic::error(
                TAG_ARG_COUNT,
                u.span,
                format!("`{}` takes {} argument(s), but {} were given", u.name.value, sig.params.len(), u.args.len()),
            )
            .with_help(help),
        );
        false
    }

    /// A constant tag argument of type `ty`.
    pub(super) fn const_arg(&mut self, arg: &ast::Expr, ty: &Type, tag: &str, param: &str) -> Option<m::Value> {
        if *ty == Type::StatMod {
            return self.stat_mod(arg, tag);
        }
        if let (Type::Dice, Some((terms, constant))) = (ty, crate::dice::written_dice(arg)) {
            // A shape that cannot be enumerated is reported with its own code.
            return self.dice_shape(&terms, constant, arg.span).map(m::Value::Dice);
        }
        let value = self.const_value_quiet(arg, ty);
        if value.is_none() && !self.reported_unknown_name(arg, ty) {
            let want = match ty {
                Type::Scale(s) => format!("a step of `{s}`"),
                other => format!("a constant {}", type_name(other)),
            };
            self.error(
                Diagnostic::error(TAG_ARG_TYPE, arg.span, format!("`{tag}` expects {want} for `{param}`"))
                    .with_help(format!("pass {want}, for example {}", self.example_of(ty))),
            );
        }
        value
    }

    /// For entity-typed arguments, an unknown name gets its own "unknown X" diagnostic.
    pub fn reported_unknown_name(&mut self, arg: &ast::Expr, ty: &Type) -> bool {
        let ast::ExprKind::Name(n) = &arg.kind else { return false };
        let ident = Spanned::new(n.clone(), arg.span);
        let (code, what, names): (&'static str, &str, Vec<String>) = match ty {
            Type::Class => (UNKNOWN_CLASS, "class", self.syms.classes.names()),
            Type::Tag => (UNKNOWN_TAG, "tag", self.syms.tags.order.clone()),
            Type::Status => (
                UNKNOWN_STATUS,
                "status",
                self.syms.tags.order.iter().filter(|t| self.syms.tags.get(t).is_some_and(|s| s.is_status)).cloned().collect(),
            ),
            Type::WeaponType => (UNKNOWN_WEAPON_TYPE, "weapon type", self.syms.weapon_types.order.clone()),
            Type::Terrain => (UNKNOWN_TERRAIN, "terrain", self.syms.terrains.order.clone()),
            Type::Movement => (UNKNOWN_MOVEMENT, "movement type", self.syms.movements.order.clone()),
            Type::Resource => (UNKNOWN_NAME, "resource", self.syms.resources.clone()),
            _ => return false,
        };
        // A known name of another kind is a type error, not an unknown name.
        if self.kind_of_name(n).is_some() {
            return false;
        }
        self.unknown_in::<()>(code, what, &ident, names, None);
        true
    }

    pub(crate) fn example_of(&self, ty: &Type) -> String {
        match ty {
            Type::Int => "`2`".into(),
            Type::Bool => "`true`".into(),
            Type::Scale(s) => self.scale(s).and_then(|v| v.get(v.len() / 2)).map_or("a step".into(), |x| format!("`{x}`")),
            Type::Tag => self.syms.tags.order.first().map_or("a tag".into(), |x| format!("`{x}`")),
            Type::Class => self.syms.classes.order.first().map_or("a class".into(), |x| format!("`{x}`")),
            Type::WeaponType => self.syms.weapon_types.order.first().map_or("a weapon type".into(), |x| format!("`{x}`")),
            Type::Status => self
                .syms
                .tags
                .order
                .iter()
                .find(|t| self.syms.tags.get(t).is_some_and(|s| s.is_status))
                .map_or("a status".into(), |x| format!("`{x}`")),
            Type::Stat => self.syms.stats.first().map_or("a stat".into(), |x| format!("`{}`", x.name)),
            Type::StatMod => self.syms.stats.first().map_or("`res+1`".into(), |x| format!("`{}+1`", x.name)),
            Type::Dice => "`2d6` or `2d10 + 3d8`".into(),
            other => format!("a {}", type_name(other)),
        }
    }

    /// `stat + N` or `stat - N`: the argument of Bonus(Rating+X) and Inflict(Rating-X).
    pub fn stat_mod(&mut self, arg: &ast::Expr, tag: &str) -> Option<m::Value> {
        let parsed = match &arg.kind {
            ast::ExprKind::Binary(op @ (ast::BinaryOp::Add | ast::BinaryOp::Sub), lhs, rhs) => match (&lhs.kind, &rhs.kind) {
                (ast::ExprKind::Name(stat), ast::ExprKind::Int(n)) => {
                    Some((stat.clone(), lhs.span, if *op == ast::BinaryOp::Sub { n.saturating_neg() } else { *n }))
                }
                _ => None,
            },
            _ => None,
        };
        let Some((stat, stat_span, amount)) = parsed else {
            let example = self.example_of(&Type::StatMod);
            self.error(
                Diagnostic::error(TAG_ARG_TYPE, arg.span, format!("`{tag}` expects a stat and an amount"))
                    .with_help(format!("write it like {example}: a stat name, `+` or `-`, and a number")),
            );
            return None;
        };
        if self.syms.stat(&stat).is_none() {
            let names: Vec<String> = self.syms.stats.iter().map(|a| a.name.clone()).collect();
            self.unknown_in::<()>(UNKNOWN_STAT, "stat", &Spanned::new(stat, stat_span), names, None);
            return None;
        }
        Some(m::Value::StatMod { stat: stat.to_string(), amount })
    }

    /// Whether `name` is a definition of the kind `ty` (names of different kinds may coincide:
    /// the movement type `Armored` and the tag `Armored`).
    pub fn has_name_of_kind(&self, name: &str, ty: &Type) -> bool {
        match ty {
            Type::Tag => self.syms.tags.get(name).is_some_and(|s| !s.is_status),
            Type::Status => self.syms.tags.get(name).is_some_and(|s| s.is_status),
            Type::Class => self.syms.classes.contains(name),
            Type::WeaponType => self.syms.weapon_types.contains(name),
            Type::Terrain => self.syms.terrains.contains(name),
            Type::Movement => self.syms.movements.contains(name),
            Type::Resource => self.syms.resources.iter().any(|r| r == name),
            _ => false,
        }
    }

    /// What kind of definition a bare name is, if any.
    pub fn kind_of_name(&self, name: &str) -> Option<Type> {
        if let Some(sig) = self.syms.tags.get(name) {
            return Some(if sig.is_status { Type::Status } else { Type::Tag });
        }
        if self.syms.classes.contains(name) {
            return Some(Type::Class);
        }
        if self.syms.weapon_types.contains(name) {
            return Some(Type::WeaponType);
        }
        if self.syms.terrains.contains(name) {
            return Some(Type::Terrain);
        }
        if self.syms.movements.contains(name) {
            return Some(Type::Movement);
        }
        None
    }

    /// A constant of type `ty`, reporting a mismatch.
    pub(super) fn const_value(&mut self, e: &ast::Expr, ty: &Type) -> Option<m::Value> {
        if let (Type::Dice, Some((terms, constant))) = (ty, crate::dice::written_dice(e)) {
            // A shape that cannot be enumerated is reported with its own code.
            return self.dice_shape(&terms, constant, e.span).map(m::Value::Dice);
        }
        let v = self.const_value_quiet(e, ty);
        if v.is_none() && !self.reported_unknown_name(e, ty) {
            self.error(
                Diagnostic::error(TYPE_MISMATCH, e.span, format!("expected a constant {}", type_name(ty)))
                    .with_help(format!("write a constant, for example {}", self.example_of(ty))),
            );
        }
        v
    }

    pub(super) fn const_value_quiet(&self, e: &ast::Expr, ty: &Type) -> Option<m::Value> {
        match (&e.kind, ty) {
            (ast::ExprKind::Int(n), Type::Int) => Some(m::Value::Int(*n)),
            (ast::ExprKind::Unary(ast::UnaryOp::Neg, inner), Type::Int) => match self.const_value_quiet(inner, ty)? {
                m::Value::Int(n) => Some(m::Value::Int(n.saturating_neg())),
                _ => None,
            },
            (ast::ExprKind::Bool(b), Type::Bool) => Some(m::Value::Bool(*b)),
            // A number where dice are wanted: dice that always show it (Absorption 0).
            (ast::ExprKind::Int(n), Type::Dice) => Some(m::Value::Dice(m::DiceShape { terms: Vec::new(), constant: *n })),
            (ast::ExprKind::Name(n), Type::Scale(s)) => {
                self.step_index(s, n).map(|index| m::Value::Step { scale: m::Name::new(s), index })
            }
            (ast::ExprKind::Name(n), Type::Stat) => {
                self.syms.stat(n).is_some().then(|| m::Value::Name { ty: Type::Stat, name: m::Name::new(n) })
            }
            (ast::ExprKind::Name(n), Type::Tag) => {
                self.syms.tags.get(n).filter(|s| !s.is_status).map(|_| m::Value::Name { ty: Type::Tag, name: m::Name::new(n) })
            }
            (ast::ExprKind::Name(n), entity) if self.has_name_of_kind(n, entity) => {
                Some(m::Value::Name { ty: entity.clone(), name: m::Name::new(n) })
            }
            _ => None,
        }
    }

    /// A consumable acts when used: its own modifiers, and its tags' modifiers (but `charges =`),
    /// `when`s and events (through what they grant), would never apply
    /// (`oc::item::inert`).
    pub(super) fn inert_on_consumable(&mut self, it: &ast::ItemDef, tags: &[m::Tag]) {
        const HELP: &str = "a consumable acts when used: put what it does in `use { ... }`, or make it an accessory, whose modifiers hold while it is carried";
        if let Some(first) = it.modifiers.first() {
            self.error(
                Diagnostic::error(
                    ITEM_INERT,
                    stmt_span(first),
                    format!("the consumable `{}` would never apply this", it.name.value),
                )
                .with_label("a consumable's modifiers never apply")
                .with_help(HELP),
            );
        }
        /// What the first effect of `effects` that would not apply on a consumable is, following
        /// grants.
        fn inert(effects: &[m::Effect], tags: &[m::Tag], depth: u32) -> Option<String> {
            effects.iter().find_map(|e| match e {
                m::Effect::Modify { place, op, .. } => (!(place.unit == m::UnitRef::Holder
                    && place.attribute == m::AttributeRef::Named("charges".into())
                    && *op == m::AssignOp::Set))
                    .then(|| "a modifier".to_string()),
                m::Effect::When { .. } => Some("a `when`".into()),
                m::Effect::On { .. } => Some("an `on EVENT`".into()),
                m::Effect::Command { .. } => Some("a command".into()),
                m::Effect::Grant { tag, .. } if depth < 8 => tags
                    .iter()
                    .find(|t| t.name == *tag)
                    .and_then(|t| inert(&t.effects, tags, depth + 1))
                    .map(|what| format!("a grant of `{tag}`, which holds {what}")),
                m::Effect::Grant { .. } | m::Effect::GrantParam { .. } | m::Effect::Action(_) => None,
            })
        }
        for u in &it.tags {
            let Some(tag) = tags.iter().find(|t| t.name == u.name.value) else { continue };
            let Some(what) = inert(&tag.effects, tags, 0) else { continue };
            self.error(
                Diagnostic::error(
                    ITEM_INERT,
                    u.span,
                    format!("`{}` on the consumable `{}` would never apply: it holds {what}", u.name.value, it.name.value),
                )
                .with_label("never applies on a consumable")
                .with_help(format!("a consumable's tags give actions and `charges`; {HELP}")),
            );
        }
    }

    // ------------------------------------------------------------------ classes and items
}
