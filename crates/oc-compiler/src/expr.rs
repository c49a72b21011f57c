//! Type checking of expressions and effect bodies. Types are inferred bottom-up, with the
//! expected type passed down to resolve bare names (`E` as a rating, `Poisoned` as a status).

use std::collections::HashMap;

use oc_diag::{did_you_mean, Diagnostic};
use oc_model as m;
use oc_model::conformance::{self as conf, ExprKind as Kind, Place};
use oc_model::Type;
use oc_model::{ACCESSORY_PROPERTIES, UNIT_FIELDS, WEAPON_PROPERTIES};
use oc_syntax::ast::{self, BinaryOp, ExprKind};

use crate::codes::*;
use crate::env::{type_name, Checker, TableSym};

mod effects;
mod rolls;

/// What names an expression may use: the parameters in scope, the combat formulas above it,
/// and what its place holds (`oc_model::conformance::scope`: units, distance, dice...).
#[derive(Clone, Copy)]
pub(crate) struct Scope<'s> {
    pub params: &'s [(String, Type)],
    pub place: Place,
    /// Combat formulas visible from here.
    pub formulas: Option<&'s HashMap<String, Type>>,
}

impl<'s> Scope<'s> {
    pub fn new(place: Place, params: &'s [(String, Type)]) -> Scope<'s> {
        Scope { params, place, formulas: None }
    }

    /// What the place holds.
    pub fn holds(&self) -> conf::Scope {
        conf::scope(self.place)
    }

    /// The same parameters and formulas in another place.
    pub fn at(&self, place: Place) -> Scope<'s> {
        Scope { place, ..*self }
    }
}

type Typed = (m::Expr, Option<Type>);

fn error_expr() -> Typed {
    (m::Expr::Const(m::Value::Int(0)), None)
}

impl<'a> Checker<'a> {
    /// The unit `name` names, where its place has that unit.
    pub(crate) fn unit_ref(&self, name: &str, scope: &Scope) -> Option<m::UnitRef> {
        unit_named(name).filter(|u| scope.holds().units.contains(u))
    }

    /// An expression that reads what its place does not hold (`distance` where there is no
    /// second unit, `dealt` outside `on hit`): an error naming the places that hold it.
    fn not_here(&mut self, span: oc_diag::Span, what: &str, kind: Kind, scope: &Scope) -> Typed {
        let places = conf::where_allowed(kind);
        self.error(
            Diagnostic::error(EXPR_NOT_HERE, span, format!("{what} has no value in {}", scope.place.describe()))
                .with_label("nothing to read here")
                .with_help(format!("{what} is read in {}", join_or(&places))),
        );
        error_expr()
    }

    /// A unit name its place does not hold (`foe` in `on activated`): an error saying which
    /// units it has.
    fn no_such_unit(&mut self, span: oc_diag::Span, name: &str, scope: &Scope) -> Typed {
        let here: Vec<String> = m::UnitRef::ALL
            .iter()
            .filter(|(n, u)| scope.holds().units.contains(u) && *n != "user")
            .map(|(n, _)| format!("`{n}`"))
            .collect();
        self.error(
            Diagnostic::error(EXPR_NOT_HERE, span, format!("there is no `{name}` in {}", scope.place.describe()))
                .with_label("no such unit here")
                .with_help(format!("here an expression can name {}", join_or(&here))),
        );
        error_expr()
    }

    pub fn expr(&mut self, e: &ast::Expr, scope: &Scope, expected: Option<&Type>) -> Typed {
        // Dice written as a value (`Bite(2d10 + 3d8)`, `absorption = 3d4`): a `Dice` constant.
        if let Some((terms, constant)) = crate::dice::written_dice(e) {
            return match self.dice_shape(&terms, constant, e.span) {
                Some(shape) => (m::Expr::Const(m::Value::Dice(shape)), Some(Type::Dice)),
                None => error_expr(),
            };
        }
        match &e.kind {
            ExprKind::Error => error_expr(),
            ExprKind::Int(n) => (m::Expr::Const(m::Value::Int(*n)), Some(Type::Int)),
            ExprKind::Bool(b) => (m::Expr::Const(m::Value::Bool(*b)), Some(Type::Bool)),
            ExprKind::Str(s) => (m::Expr::Const(m::Value::Str(s.clone())), Some(Type::Str)),
            ExprKind::Name(n) => self.name(n, e, scope, expected),
            ExprKind::Unary(op, inner) => {
                let want = if *op == ast::UnaryOp::Neg { Type::Int } else { Type::Bool };
                let (x, ty) = self.expr(inner, scope, Some(&want));
                if let Some(ty) = &ty {
                    if *ty != want {
                        let what = if want == Type::Int { "`-` negates numbers" } else { "`not` negates conditions" };
                        self.mismatch(inner.span, &want, ty, what);
                        return error_expr();
                    }
                }
                let op = if *op == ast::UnaryOp::Neg { m::UnaryOp::Neg } else { m::UnaryOp::Not };
                (m::Expr::Unary { op, expr: Box::new(x) }, ty.map(|_| want))
            }
            ExprKind::Binary(op, lhs, rhs) => self.binary(*op, lhs, rhs, e, scope),
            ExprKind::Field(base, field) => self.field(base, field, scope),
            ExprKind::Index(base, args) => self.lookup(base, args, scope),
            ExprKind::Call(f, args) => self.call(f, args, e, scope),
            ExprKind::Die(_) => {
                self.error(
                    Diagnostic::error(TYPE_MISMATCH, e.span, "dice are not a number until they are rolled")
                        .with_label("dice")
                        .with_help(
                            "roll them: `roll(2d6)`, or declare them in the ruleset (`dice dmg 2d6`) and write `roll(dmg)`",
                        ),
                );
                error_expr()
            }
            ExprKind::Has(unit, tag) => self.has(unit, tag, scope),
            ExprKind::If(c, t, f) => {
                let (c_expr, c_ty) = self.expr(c, scope, Some(&Type::Bool));
                if let Some(ty) = &c_ty {
                    if *ty != Type::Bool {
                        self.mismatch(c.span, &Type::Bool, ty, "`if` needs a condition");
                    }
                }
                let (t_expr, t_ty) = self.expr(t, scope, expected);
                let (f_expr, f_ty) = self.expr(f, scope, t_ty.as_ref().or(expected));
                let ty = match (t_ty, f_ty) {
                    (Some(a), Some(b)) if a == b => Some(a),
                    (Some(a), Some(b)) => {
                        self.mismatch(f.span, &a, &b, "both branches of `if` must have the same type");
                        None
                    }
                    _ => None,
                };
                (m::Expr::If { condition: Box::new(c_expr), then: Box::new(t_expr), otherwise: Box::new(f_expr) }, ty)
            }
        }
    }

    fn name(&mut self, n: &str, e: &ast::Expr, scope: &Scope, expected: Option<&Type>) -> Typed {
        if let Some((_, ty)) = scope.params.iter().find(|(p, _)| p == n) {
            if scope.place == Place::Step && matches!(n, "cost" | "priced") {
                self.notes.reads_action_cost = true;
            }
            return (m::Expr::Param(n.to_string()), Some(ty.clone()));
        }
        if let Some(u) = unit_named(n) {
            if !scope.holds().units.contains(&u) {
                return self.no_such_unit(e.span, n, scope);
            }
            return (m::Expr::Unit(u), Some(Type::Unit));
        }
        let holds = scope.holds();
        for (name, expr, kind, has) in [
            ("triangle", m::Expr::Triangle, Kind::Triangle, holds.triangle),
            ("dealt", m::Expr::Dealt, Kind::Dealt, holds.dealt),
            ("chart", m::Expr::Chart, Kind::Chart, holds.chart),
            ("distance", m::Expr::Distance, Kind::Distance, holds.distance),
            ("cover", m::Expr::Cover, Kind::Cover, holds.moved),
        ] {
            if n == name {
                if !has {
                    return self.not_here(e.span, &format!("`{name}`"), kind, scope);
                }
                self.notes.reads_triangle |= name == "triangle";
                return (expr, Some(Type::Int));
            }
        }
        if let Some(ty) = scope.formulas.and_then(|f| f.get(n)) {
            return (m::Expr::Formula(n.to_string()), Some(ty.clone()));
        }
        if let Some(Type::Scale(s)) = expected {
            if let Some(index) = self.step_index(s, n) {
                return (m::Expr::Const(m::Value::Step { scale: m::Name::new(s), index }), Some(Type::Scale(s.clone())));
            }
        }
        let scales: Vec<(String, u32)> = self
            .syms
            .scales
            .iter()
            .filter_map(|s| s.steps.iter().position(|x| x == n).map(|i| (s.name.clone(), i as u32)))
            .collect();
        if let Some((scale, index)) = scales.first() {
            return (
                m::Expr::Const(m::Value::Step { scale: m::Name::new(scale), index: *index }),
                Some(Type::Scale(scale.clone())),
            );
        }
        if let Some(want) = expected {
            if self.has_name_of_kind(n, want) {
                return (m::Expr::Const(m::Value::Name { ty: want.clone(), name: m::Name::new(n) }), Some(want.clone()));
            }
        }
        if let Some(ty) = self.kind_of_name(n) {
            return (m::Expr::Const(m::Value::Name { ty: ty.clone(), name: m::Name::new(n) }), Some(ty));
        }
        if let Some(Type::Stat) = expected {
            if self.syms.stat(n).is_some() {
                return (m::Expr::Const(m::Value::Name { ty: Type::Stat, name: m::Name::new(n) }), Some(Type::Stat));
            }
        }
        // Unknown. Where a kind of definition was expected, say which kind.
        if let Some(want) = expected {
            if self.reported_unknown_name(e, want) {
                return error_expr();
            }
        }
        // Otherwise suggest from everything this scope could mean.
        let mut candidates: Vec<String> = scope.params.iter().map(|(p, _)| p.clone()).collect();
        candidates.extend(m::UnitRef::ALL.iter().filter(|(_, u)| holds.units.contains(u)).map(|(n, _)| n.to_string()));
        for (name, has) in [("distance", holds.distance), ("triangle", holds.triangle), ("dealt", holds.dealt)] {
            if has {
                candidates.push(name.into());
            }
        }
        if let Some(f) = scope.formulas {
            // In a fixed order (the formulas are hashed): of two as near, the same is suggested on every run.
            let mut formulas: Vec<String> = f.keys().cloned().collect();
            formulas.sort();
            candidates.extend(formulas);
        }
        let is_attr = self.attribute_type(n).is_some();
        let help = if is_attr {
            let units: Vec<String> = m::UnitRef::ALL
                .iter()
                .filter(|(u, r)| holds.units.contains(r) && *u != "user")
                .map(|(u, _)| format!("`{u}.{n}`"))
                .collect();
            format!("`{n}` is a stat of a unit: write {}", join_or(&units))
        } else if scope.formulas.is_some() && crate::env::is_required_formula(n) {
            format!("`{n}` is a formula defined below this one; formulas may only use those above them")
        } else {
            match did_you_mean(n, candidates.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None if scope.params.is_empty() => "this name is not a unit, a formula, a rating or a definition".to_string(),
                None => format!(
                    "the parameters here are {}",
                    scope.params.iter().map(|(p, _)| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                ),
            }
        };
        self.error(Diagnostic::error(UNKNOWN_NAME, e.span, format!("unknown name `{n}`")).with_help(help));
        error_expr()
    }

    fn binary(&mut self, op: BinaryOp, lhs: &ast::Expr, rhs: &ast::Expr, e: &ast::Expr, scope: &Scope) -> Typed {
        let bool_op = matches!(op, BinaryOp::And | BinaryOp::Or);
        let want_l = bool_op.then_some(Type::Bool);
        let (l, lt) = self.expr(lhs, scope, want_l.as_ref());
        // The right side is resolved with the left side's type in mind (`spd >= C`).
        let hint = if bool_op { Some(Type::Bool) } else { lt.clone() };
        let (r, rt) = self.expr(rhs, scope, hint.as_ref());
        let (Some(lt), Some(rt)) = (lt, rt) else { return error_expr() };
        let mop = model_op(op);
        let binary = |ty: Type, result: Type| {
            (m::Expr::Binary { op: mop, ty, lhs: Box::new(l.clone()), rhs: Box::new(r.clone()) }, Some(result))
        };
        match op {
            BinaryOp::And | BinaryOp::Or => {
                for (ty, side) in [(&lt, lhs), (&rt, rhs)] {
                    if *ty != Type::Bool {
                        self.mismatch(side.span, &Type::Bool, ty, &format!("`{}` combines conditions", op.symbol()));
                        return error_expr();
                    }
                }
                binary(Type::Bool, Type::Bool)
            }
            BinaryOp::Add | BinaryOp::Sub => match (&lt, &rt) {
                (Type::Int, Type::Int) => binary(Type::Int, Type::Int),
                (Type::Scale(s), Type::Int) => binary(Type::Scale(s.clone()), Type::Scale(s.clone())),
                (Type::Int, Type::Scale(s)) if op == BinaryOp::Add => binary(Type::Scale(s.clone()), Type::Scale(s.clone())),
                (Type::Scale(a), Type::Scale(b)) if op == BinaryOp::Sub && a == b => binary(Type::Scale(a.clone()), Type::Int),
                _ => {
                    self.error(
                        Diagnostic::error(
                            TYPE_MISMATCH,
                            e.span,
                            format!("cannot apply `{}` to {} and {}", op.symbol(), type_name(&lt), type_name(&rt)),
                        )
                        .with_help("numbers add to numbers; a rating plus a number shifts it by steps; a rating minus a rating of the same scale counts the steps between them"),
                    );
                    error_expr()
                }
            },
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                for (ty, side) in [(&lt, lhs), (&rt, rhs)] {
                    if *ty != Type::Int {
                        let help = if matches!(ty, Type::Scale(_)) {
                            "ratings cannot be multiplied; look them up in a table, or count steps with `a - b`"
                        } else {
                            "multiplication and division work on numbers"
                        };
                        self.mismatch(side.span, &Type::Int, ty, help);
                        return error_expr();
                    }
                }
                binary(Type::Int, Type::Int)
            }
            _ => {
                let ordered = !matches!(op, BinaryOp::Eq | BinaryOp::Ne);
                if let (Type::Scale(s), Type::Int) | (Type::Int, Type::Scale(s)) = (&lt, &rt) {
                    let (left, right) = (type_name(&lt), type_name(&rt));
                    // The examples in this ruleset's own words: a step of this scale and a stat
                    // of it (the standard game's `C` and `spd` mean nothing in another).
                    let steps = self.scale(s).cloned().unwrap_or_default();
                    let step = steps.get(steps.len() / 2).or(steps.first()).cloned().unwrap_or_else(|| "C".to_string());
                    let stat = self
                        .syms
                        .stats
                        .iter()
                        .chain(&self.syms.bases)
                        .find(|a| a.ty == Type::Scale(s.clone()))
                        .map_or_else(|| "spd".to_string(), |a| a.name.clone());
                    self.error(
                        Diagnostic::error(SCALE_INT_COMPARE, e.span, format!("a {s} is compared with a number"))
                            .with_label(format!("`{}` compares {} with {}", op.symbol(), oc_diag::article(&left), oc_diag::article(&right)))
                            .with_help(format!(
                                "a {s}'s values are steps, not numbers: compare with a step (`>= {step}`) or count steps (`attacker.{stat} - defender.{stat} >= 2`)"
                            )),
                    );
                    return error_expr();
                }
                if lt != rt {
                    self.error(
                        Diagnostic::error(
                            TYPE_MISMATCH,
                            e.span,
                            format!("cannot compare {} with {}", type_name(&lt), type_name(&rt)),
                        )
                        .with_help("both sides of a comparison must have the same type"),
                    );
                    return error_expr();
                }
                if ordered && !matches!(lt, Type::Int | Type::Scale(_)) {
                    self.error(
                        Diagnostic::error(TYPE_MISMATCH, e.span, format!("{} values have no order", type_name(&lt)))
                            .with_help("`<`, `<=`, `>` and `>=` compare numbers or ratings; use `==` or `!=`"),
                    );
                    return error_expr();
                }
                binary(lt, Type::Bool)
            }
        }
    }

    fn field(&mut self, base: &ast::Expr, field: &ast::Ident, scope: &Scope) -> Typed {
        // unit.accessory.weight
        if let ExprKind::Field(inner, mid) = &base.kind {
            if mid.value == "accessory" {
                let Some(unit) = self.unit_of(inner, scope) else { return error_expr() };
                if !ACCESSORY_PROPERTIES.iter().any(|(p, _)| *p == field.value) {
                    self.error(
                        Diagnostic::error(UNKNOWN_STAT, field.span, format!("an accessory has no `{}`", field.value))
                            .with_help("an accessory has `weight`; its other bonuses are tags and modifiers on the unit"),
                    );
                    return error_expr();
                }
                return (m::Expr::Accessory { unit, property: field.value.to_string() }, Some(Type::Int));
            }
        }
        // unit.weapon.property
        if let ExprKind::Field(inner, mid) = &base.kind {
            if mid.value == "weapon" {
                let Some(unit) = self.unit_of(inner, scope) else { return error_expr() };
                let Some((_, ty)) = WEAPON_PROPERTIES.iter().find(|(p, _)| *p == field.value) else {
                    let names: Vec<&str> = WEAPON_PROPERTIES.iter().map(|(p, _)| *p).collect();
                    let help = match did_you_mean(&field.value, names.iter().copied()) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("a weapon has {}", names.join(", ")),
                    };
                    self.error(
                        Diagnostic::error(UNKNOWN_STAT, field.span, format!("a weapon has no `{}`", field.value)).with_help(help),
                    );
                    return error_expr();
                };
                self.notes.reads_weapon_staff |= field.value == "staff";
                return (m::Expr::Weapon { unit, property: field.value.to_string() }, Some(ty.clone()));
            }
        }
        // param.amount for StatMod parameters
        if let ExprKind::Name(p) = &base.kind {
            if let Some((_, Type::StatMod)) = scope.params.iter().find(|(n, _)| n == p) {
                if field.value == "amount" {
                    return (m::Expr::AmountOfParam(p.to_string()), Some(Type::Int));
                }
                self.error(
                    Diagnostic::error(
                        UNKNOWN_STAT,
                        field.span,
                        format!("`{p}` is a StatMod: it has `.amount`, and `.stat` only as an effect target"),
                    )
                    .with_help(format!("read `{p}.amount`, or change the stat with `{p}.stat += {p}.amount`")),
                );
                return error_expr();
            }
        }
        let Some(unit) = self.unit_of(base, scope) else { return error_expr() };
        if field.value == "weapon" {
            self.error(
                Diagnostic::error(TYPE_MISMATCH, field.span, "a weapon is not a value on its own")
                    .with_help("read one of its properties: `.weapon.might`, `.weapon.weight`, `.weapon.magic` ..."),
            );
            return error_expr();
        }
        match field.value.as_str() {
            "promoted" => return (m::Expr::Promoted(unit), Some(Type::Bool)),
            "activated" if !scope.holds().activated => {
                return self.not_here(field.span, "whether a unit has activated", Kind::Activated, scope)
            }
            "activated" => return (m::Expr::Activated(unit), Some(Type::Bool)),
            "moved" if !scope.holds().moved => {
                return self.not_here(field.span, "whether a unit moved before attacking", Kind::Moved, scope)
            }
            "moved" => return (m::Expr::Moved(unit), Some(Type::Bool)),
            "terrain_defense" => {
                self.notes.reads_terrain_defense = true;
                return (m::Expr::TerrainDefense(unit), Some(Type::Int));
            }
            // Seed 003's units of figures: a ruleset's own attribute of the name comes first.
            "figures" | "figure_hp" if self.attribute_type(&field.value).is_none() && !scope.holds().activated => {
                return self.not_here(field.span, "a unit's figures", Kind::Figures, scope)
            }
            "figures" if self.attribute_type("figures").is_none() => return (m::Expr::Figures(unit), Some(Type::Int)),
            "figure_hp" if self.attribute_type("figure_hp").is_none() => return (m::Expr::FigureHp(unit), Some(Type::Int)),
            _ => {}
        }
        if let Some((_, Type::StatMod)) = scope.params.iter().find(|(n, _)| *n == field.value) {
            // The stat a StatMod argument names: any of the ruleset's stats, so a value of their
            // one type (every stat of seed 000 is a Rating, of seed 001 a number).
            let mut types = self.syms.stats.iter().map(|a| a.ty.clone());
            let first = types.next();
            return match first {
                Some(ty) if types.all(|t| t == ty) => {
                    (m::Expr::AttributeOfParam { unit, param: field.value.to_string() }, Some(ty))
                }
                _ => {
                    self.error(
                        Diagnostic::error(
                            TYPE_MISMATCH,
                            field.span,
                            format!("the stat `{}` names may be of any of the ruleset's types", field.value),
                        )
                        .with_label("no one type")
                        .with_help("its stats are not all of one type: read a named stat (`self.str`) instead"),
                    );
                    error_expr()
                }
            };
        }
        match self.attribute_type(&field.value) {
            Some(ty) => {
                self.notes.reads_can_attack_in_combat |=
                    field.value == "can_attack" && matches!(scope.place, Place::Formula | Place::Strike);
                (m::Expr::Attribute { unit, name: field.value.to_string() }, Some(ty))
            }
            None => {
                let mut names = self.attribute_names();
                names.extend(UNIT_FIELDS.iter().map(|(n, _)| *n));
                let help = match did_you_mean(&field.value, names.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("a unit has {}", names.join(", ")),
                };
                self.error(
                    Diagnostic::error(UNKNOWN_STAT, field.span, format!("a unit has no `{}`", field.value)).with_help(help),
                );
                error_expr()
            }
        }
    }

    /// The unit an expression names, or a reported error.
    fn unit_of(&mut self, e: &ast::Expr, scope: &Scope) -> Option<m::UnitRef> {
        if let ExprKind::Name(n) = &e.kind {
            if let Some(u) = self.unit_ref(n, scope) {
                return Some(u);
            }
        }
        let (_, ty) = self.expr(e, scope, None);
        if let Some(ty) = ty {
            let here: Vec<String> = m::UnitRef::ALL
                .iter()
                .filter(|(n, u)| scope.holds().units.contains(u) && *n != "user")
                .map(|(n, _)| format!("`{n}`"))
                .collect();
            let help = format!("fields are read from units: here {}", join_or(&here));
            self.error(
                Diagnostic::error(TYPE_MISMATCH, e.span, format!("expected a unit, found {}", type_name(&ty))).with_help(help),
            );
        }
        None
    }

    fn lookup(&mut self, base: &ast::Expr, args: &[ast::Expr], scope: &Scope) -> Typed {
        let ExprKind::Name(table) = &base.kind else {
            self.error(
                Diagnostic::error(TYPE_MISMATCH, base.span, "only tables can be looked up with `[...]`")
                    .with_help("write a table's name: `to_hit[attacker.skl, defender.spd]`"),
            );
            return error_expr();
        };
        let Some(TableSym { keys, value }) = self.syms.tables.get(table.as_str()).cloned() else {
            let mut names: Vec<String> = self.syms.tables.keys().cloned().collect();
            // In a fixed order (the table is hashed): the same help on every run.
            names.sort();
            let help = match did_you_mean(table, names.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("the ruleset's tables: {}", names.join(", ")),
            };
            self.error(Diagnostic::error(UNKNOWN_TABLE, base.span, format!("unknown table `{table}`")).with_help(help));
            return error_expr();
        };
        if args.len() != keys.len() {
            self.error(
                Diagnostic::error(
                    TYPE_MISMATCH,
                    base.span.to(args.last().map_or(base.span, |a| a.span)),
                    format!("`{table}` takes {} key(s), {} given", keys.len(), args.len()),
                )
                .with_help(format!("look it up as `{table}[{}]`", keys.join(", "))),
            );
            return error_expr();
        }
        let mut lowered = Vec::new();
        for (arg, key) in args.iter().zip(&keys) {
            let want = Type::Scale(key.clone());
            let (x, ty) = self.expr(arg, scope, Some(&want));
            if let Some(ty) = ty {
                if ty != want {
                    self.mismatch(arg.span, &want, &ty, &format!("`{table}` is indexed by {}", keys.join(", ")));
                }
            }
            lowered.push(x);
        }
        (m::Expr::Lookup { table: table.to_string(), args: lowered }, Some(value))
    }

    /// Whether `e` reads a roll anywhere, also through a combat formula.
    pub(crate) fn reads_a_roll(&self, e: &m::Expr) -> bool {
        match e {
            m::Expr::Roll { .. } | m::Expr::RollFresh { .. } | m::Expr::RollValue { .. } => true,
            m::Expr::Formula(name) => self.notes.rolling_formulas.contains(name),
            m::Expr::Unary { expr, .. } => self.reads_a_roll(expr),
            m::Expr::Binary { lhs, rhs, .. } => self.reads_a_roll(lhs) || self.reads_a_roll(rhs),
            m::Expr::Lookup { args, .. } | m::Expr::Call { args, .. } | m::Expr::Has { args, .. } => {
                args.iter().any(|a| self.reads_a_roll(a))
            }
            m::Expr::If { condition, then, otherwise } => {
                self.reads_a_roll(condition) || self.reads_a_roll(then) || self.reads_a_roll(otherwise)
            }
            _ => false,
        }
    }

    fn call(&mut self, f: &ast::Ident, args: &[ast::Expr], e: &ast::Expr, scope: &Scope) -> Typed {
        match f.value.as_str() {
            "roll" => self.roll(args, e, scope),
            "min" | "max" | "abs" | "clamp" => {
                let (function, arity) = match f.value.as_str() {
                    "min" => (m::Function::Min, 2),
                    "max" => (m::Function::Max, 2),
                    "abs" => (m::Function::Abs, 1),
                    _ => (m::Function::Clamp, 3),
                };
                if args.len() != arity {
                    self.error(
                        Diagnostic::error(TYPE_MISMATCH, e.span, format!("`{}` takes {arity} argument(s)", f.value))
                            .with_help("min(a, b), max(a, b), abs(x), clamp(x, low, high)"),
                    );
                    return error_expr();
                }
                let mut lowered = Vec::new();
                let mut ty: Option<Type> = None;
                for a in args {
                    let (x, t) = self.expr(a, scope, ty.as_ref());
                    let Some(t) = t else { return error_expr() };
                    let numeric = matches!(t, Type::Int) || (matches!(t, Type::Scale(_)) && function != m::Function::Abs);
                    if !numeric {
                        self.mismatch(
                            a.span,
                            &Type::Int,
                            &t,
                            "these functions work on numbers (min, max and clamp also on ratings)",
                        );
                        return error_expr();
                    }
                    match &ty {
                        Some(prev) if *prev != t => {
                            self.mismatch(a.span, prev, &t, "all arguments must have the same type");
                            return error_expr();
                        }
                        _ => ty = Some(t),
                    }
                    lowered.push(x);
                }
                (m::Expr::Call { function, args: lowered }, ty)
            }
            other => {
                let help = match did_you_mean(other, ["roll", "min", "max", "abs", "clamp"]) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => {
                        "the functions are roll, min, max, abs and clamp; effects such as heal(...) are statements, not values"
                            .to_string()
                    }
                };
                self.error(Diagnostic::error(UNKNOWN_NAME, f.span, format!("unknown function `{other}`")).with_help(help));
                error_expr()
            }
        }
    }

    fn has(&mut self, unit: &ast::Expr, tag: &ast::TagRef, scope: &Scope) -> Typed {
        let Some(unit) = self.unit_of(unit, scope) else { return error_expr() };
        if tag.args.is_empty() {
            if let Some((_, ty)) = scope.params.iter().find(|(p, _)| *p == tag.name.value) {
                if matches!(ty, Type::Tag | Type::Status) {
                    return (m::Expr::HasParam { unit, param: tag.name.value.to_string() }, Some(Type::Bool));
                }
                self.error(
                    Diagnostic::error(
                        TYPE_MISMATCH,
                        tag.name.span,
                        format!("`{}` is {}, not a tag", tag.name.value, type_name(ty)),
                    )
                    .with_help("`has` takes a tag or status, or a parameter of type Tag or Status"),
                );
                return error_expr();
            }
        }
        let Some(sig) = self.syms.tags.get(tag.name.value.as_str()).cloned() else {
            let names = self.syms.tags.order.clone();
            self.unknown_in::<()>(UNKNOWN_TAG, "tag", &tag.name, names, None);
            return error_expr();
        };
        let Some(args) = self.tag_args(tag, &sig, scope) else { return error_expr() };
        (m::Expr::Has { unit, tag: tag.name.value.to_string(), args }, Some(Type::Bool))
    }

    /// Arguments of a tag used inside an effect (`grant`, `has`): expressions, which may use parameters.
    fn tag_args(&mut self, tag: &ast::TagRef, sig: &crate::env::TagSig, scope: &Scope) -> Option<Vec<m::Expr>> {
        if !self.arg_count_ok(tag, sig) {
            return None;
        }
        let mut out = Vec::new();
        for (arg, (pname, ty)) in tag.args.iter().zip(&sig.params) {
            if *ty == Type::StatMod {
                if let ExprKind::Name(p) = &arg.kind {
                    if scope.params.iter().any(|(n, t)| n == p && *t == Type::StatMod) {
                        out.push(m::Expr::Param(p.to_string()));
                        continue;
                    }
                }
                out.push(m::Expr::Const(self.stat_mod(arg, &tag.name.value)?));
                continue;
            }
            let (x, t) = self.expr(arg, scope, Some(ty));
            let t = t?;
            if t != *ty {
                self.error(
                    Diagnostic::error(
                        TAG_ARG_TYPE,
                        arg.span,
                        format!("`{}` expects {} for `{pname}`, found {}", tag.name.value, type_name(ty), type_name(&t)),
                    )
                    .with_help(format!("pass a {}", type_name(ty))),
                );
                return None;
            }
            out.push(x);
        }
        Some(out)
    }
}

/// The unit a name means (`self`, `user`, `foe`...), wherever it is written.
pub(crate) fn unit_named(name: &str) -> Option<m::UnitRef> {
    m::UnitRef::ALL.iter().find(|(n, _)| *n == name).map(|(_, u)| *u)
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn join_or(items: &[String]) -> String {
    match items {
        [] => "nowhere".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn model_op(op: BinaryOp) -> m::BinaryOp {
    match op {
        BinaryOp::Or => m::BinaryOp::Or,
        BinaryOp::And => m::BinaryOp::And,
        BinaryOp::Eq => m::BinaryOp::Eq,
        BinaryOp::Ne => m::BinaryOp::Ne,
        BinaryOp::Lt => m::BinaryOp::Lt,
        BinaryOp::Le => m::BinaryOp::Le,
        BinaryOp::Gt => m::BinaryOp::Gt,
        BinaryOp::Ge => m::BinaryOp::Ge,
        BinaryOp::Add => m::BinaryOp::Add,
        BinaryOp::Sub => m::BinaryOp::Sub,
        BinaryOp::Mul => m::BinaryOp::Mul,
        BinaryOp::Div => m::BinaryOp::Div,
        BinaryOp::Rem => m::BinaryOp::Rem,
    }
}
