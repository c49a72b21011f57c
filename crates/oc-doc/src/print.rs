//! Compiled effects, expressions and values printed back as DSL text, for the pages.

use oc_model::{
    Action, ActionTarget, AssignOp, AttributeRef, BinaryOp, Duration, Effect, Expr, Function, Place, Type, UnaryOp, UnitRef,
    Value,
};

/// The name serde gives a unit enum variant (`Verb::TakeChest` -> `take_chest`): the DSL's word.
pub fn word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => "?".to_string(),
    }
}

pub fn unit(u: UnitRef) -> &'static str {
    match u {
        UnitRef::Holder => "self",
        UnitRef::Foe => "foe",
        UnitRef::Attacker => "attacker",
        UnitRef::Defender => "defender",
        UnitRef::Target => "target",
    }
}

pub fn ty(t: &Type) -> String {
    t.name().to_string()
}

/// A constant as written: `5`, `C`, `IronSword`, `res+1`, `2d6`.
pub fn value(v: &Value, scales: &[oc_model::Scale]) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => format!("{s:?}"),
        Value::Step { scale, index } => scales
            .iter()
            .find(|s| s.name == *scale)
            .and_then(|s| s.steps.get(*index as usize))
            .cloned()
            .unwrap_or_else(|| format!("{scale}#{index}")),
        Value::Name { name, .. } => name.to_string(),
        Value::StatMod { stat, amount } => format!("{stat}{amount:+}"),
        Value::Dice(d) => d.to_string(),
    }
}

fn precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 3,
        BinaryOp::Add | BinaryOp::Sub => 4,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 5,
    }
}

fn op_text(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Or => "or",
        BinaryOp::And => "and",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Rem => "%",
    }
}

/// An expression as DSL text, with the brackets its operators need.
pub fn expr(e: &Expr, scales: &[oc_model::Scale]) -> String {
    expr_at(e, scales, 0)
}

fn list(args: &[Expr], scales: &[oc_model::Scale]) -> String {
    args.iter().map(|a| expr(a, scales)).collect::<Vec<_>>().join(", ")
}

fn expr_at(e: &Expr, scales: &[oc_model::Scale], outer: u8) -> String {
    match e {
        Expr::Const(v) => value(v, scales),
        Expr::Unit(u) => unit(*u).to_string(),
        Expr::Param(p) | Expr::Formula(p) => p.clone(),
        Expr::Triangle => "triangle".into(),
        Expr::Distance => "distance".into(),
        Expr::Cover => "cover".into(),
        Expr::Dealt => "dealt".into(),
        Expr::Chart => "chart".into(),
        Expr::Attribute { unit: u, name } => format!("{}.{name}", unit(*u)),
        Expr::AttributeOfParam { unit: u, param } => format!("{}.{param}", unit(*u)),
        Expr::Weapon { unit: u, property } => format!("{}.weapon.{property}", unit(*u)),
        Expr::Accessory { unit: u, property } => format!("{}.accessory.{property}", unit(*u)),
        Expr::Promoted(u) => format!("{}.promoted", unit(*u)),
        Expr::TerrainDefense(u) => format!("{}.terrain_defense", unit(*u)),
        Expr::Figures(u) => format!("{}.figures", unit(*u)),
        Expr::FigureHp(u) => format!("{}.figure_hp", unit(*u)),
        Expr::Activated(u) => format!("{}.activated", unit(*u)),
        Expr::Moved(u) => format!("{}.moved", unit(*u)),
        Expr::AmountOfParam(p) => format!("{p}.amount"),
        Expr::Unary { op: UnaryOp::Neg, expr: inner } => format!("-{}", expr_at(inner, scales, 6)),
        Expr::Unary { op: UnaryOp::Not, expr: inner } => {
            let s = format!("not {}", expr_at(inner, scales, 3));
            if outer > 2 {
                format!("({s})")
            } else {
                s
            }
        }
        Expr::Binary { op, lhs, rhs, .. } => {
            let p = precedence(*op);
            let s = format!("{} {} {}", expr_at(lhs, scales, p), op_text(*op), expr_at(rhs, scales, p + 1));
            if p < outer {
                format!("({s})")
            } else {
                s
            }
        }
        Expr::Lookup { table, args } => format!("{table}[{}]", list(args, scales)),
        Expr::Roll { die, target } => {
            if *target {
                format!("roll({die}, defender)")
            } else {
                format!("roll({die})")
            }
        }
        Expr::RollFresh { shape } => format!("roll({shape})"),
        Expr::RollValue { dice } => format!("roll({})", expr(dice, scales)),
        Expr::Call { function, args } => {
            let name = match function {
                Function::Min => "min",
                Function::Max => "max",
                Function::Abs => "abs",
                Function::Clamp => "clamp",
            };
            format!("{name}({})", list(args, scales))
        }
        Expr::Has { unit: u, tag, args } => {
            let s = if args.is_empty() {
                format!("{} has {tag}", unit(*u))
            } else {
                format!("{} has {tag}({})", unit(*u), list(args, scales))
            };
            if outer > 3 {
                format!("({s})")
            } else {
                s
            }
        }
        Expr::HasParam { unit: u, param } => {
            let s = format!("{} has {param}", unit(*u));
            if outer > 3 {
                format!("({s})")
            } else {
                s
            }
        }
        Expr::If { condition, then, otherwise } => {
            let s = format!("if {} then {} else {}", expr(condition, scales), expr(then, scales), expr(otherwise, scales));
            if outer > 0 {
                format!("({s})")
            } else {
                s
            }
        }
    }
}

fn place(p: &Place) -> String {
    let attribute = match &p.attribute {
        AttributeRef::Named(n) => n.clone(),
        AttributeRef::StatOfParam(param) => format!("{param}.stat"),
    };
    if p.unit == UnitRef::Holder {
        attribute
    } else {
        format!("{}.{attribute}", unit(p.unit))
    }
}

fn target(t: ActionTarget) -> &'static str {
    match t {
        ActionTarget::Ally => "ally",
        ActionTarget::Enemy => "enemy",
        ActionTarget::Enemies => "enemies",
        ActionTarget::Unit => "unit",
        ActionTarget::SelfOnly => "self",
        ActionTarget::SelfOrAlly => "self_or_ally",
        ActionTarget::Tile => "tile",
        ActionTarget::Door => "door",
        ActionTarget::Chest => "chest",
    }
}

/// Effects as indented DSL lines.
pub fn effects(list_of: &[Effect], scales: &[oc_model::Scale]) -> String {
    let mut out = Vec::new();
    for e in list_of {
        effect(e, scales, 0, &mut out);
    }
    out.join("\n")
}

fn push_block(head: String, body: &[Effect], scales: &[oc_model::Scale], depth: usize, out: &mut Vec<String>) {
    let pad = "    ".repeat(depth);
    out.push(format!("{pad}{head} {{"));
    for e in body {
        effect(e, scales, depth + 1, out);
    }
    out.push(format!("{pad}}}"));
}

fn effect(e: &Effect, scales: &[oc_model::Scale], depth: usize, out: &mut Vec<String>) {
    let pad = "    ".repeat(depth);
    match e {
        Effect::Modify { place: p, op, value: v } => {
            let op = match op {
                AssignOp::Add => "+=",
                AssignOp::Sub => "-=",
                AssignOp::Set => "=",
            };
            out.push(format!("{pad}{} {op} {}", place(p), expr(v, scales)));
        }
        Effect::When { condition, then } => push_block(format!("when {}", expr(condition, scales)), then, scales, depth, out),
        Effect::On { event, then } => push_block(format!("on {}", word(event)), then, scales, depth, out),
        Effect::Grant { tag, args } => {
            if args.is_empty() {
                out.push(format!("{pad}grant {tag}"));
            } else {
                out.push(format!("{pad}grant {tag}({})", list(args, scales)));
            }
        }
        Effect::GrantParam { param } => out.push(format!("{pad}grant {param}")),
        Effect::Action(a) => action(a, scales, depth, out),
        Effect::Command { verb, args } => out.push(format!("{pad}{}({})", word(verb), list(args, scales))),
    }
}

fn action(a: &Action, scales: &[oc_model::Scale], depth: usize, out: &mut Vec<String>) {
    let pad = "    ".repeat(depth);
    out.push(format!("{pad}action {{"));
    let inner = "    ".repeat(depth + 1);
    let reach = match (&a.min_range, &a.max_range) {
        (Some(lo), Some(hi)) => format!(" within {}..{}", expr(lo, scales), expr(hi, scales)),
        (None, Some(hi)) | (Some(hi), None) => format!(" within {}", expr(hi, scales)),
        (None, None) => String::new(),
    };
    out.push(format!("{inner}target {}{reach}", target(a.target)));
    for r in &a.requires {
        out.push(format!("{inner}requires {}", expr(r, scales)));
    }
    if let Some(c) = &a.cost {
        out.push(format!("{inner}cost {}", expr(c, scales)));
    }
    if let Some(r) = &a.charge {
        out.push(format!("{inner}charge {r}"));
    }
    if let Some(n) = a.sequence {
        out.push(format!("{inner}sequence {n}"));
    }
    for e in &a.effects {
        effect(e, scales, depth + 1, out);
    }
    out.push(format!("{pad}}}"));
}

pub fn duration(d: Duration) -> String {
    match d {
        Duration::Activations(1) => "1 activation".into(),
        Duration::Activations(n) => format!("{n} activations"),
        Duration::Rounds(1) => "1 round".into(),
        Duration::Rounds(n) => format!("{n} rounds"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oc_model::{Expr, Type};

    fn int(i: i64) -> Expr {
        Expr::Const(Value::Int(i))
    }

    #[test]
    fn brackets_follow_precedence() {
        let sum = Expr::Binary { op: BinaryOp::Add, ty: Type::Int, lhs: Box::new(int(1)), rhs: Box::new(int(2)) };
        let product = Expr::Binary { op: BinaryOp::Mul, ty: Type::Int, lhs: Box::new(sum.clone()), rhs: Box::new(int(3)) };
        assert_eq!(expr(&product, &[]), "(1 + 2) * 3");
        let sub = Expr::Binary { op: BinaryOp::Sub, ty: Type::Int, lhs: Box::new(int(5)), rhs: Box::new(sum) };
        assert_eq!(expr(&sub, &[]), "5 - (1 + 2)");
    }
}
