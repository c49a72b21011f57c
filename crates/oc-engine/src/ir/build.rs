//! The IR built from the model ([`Ir::build`]): names interned, attributes, tables and
//! formulas by index, and what the passes over them work out once.

use oc_model as m;

use super::*;
use crate::EngineError;

impl Ir {
    pub fn build(rules: &m::Rules) -> Result<Ir, EngineError> {
        let rs = &rules.ruleset;
        let mut ir = Ir {
            id: {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            names: Vec::new(),
            atoms: Vec::new(),
            atom_ids: crate::fx::FastMap::default(),
            name_ids: crate::fx::FastMap::default(),
            attrs: Vec::new(),
            attr_ids: crate::fx::FastMap::default(),
            scales: rs.scales.clone(),
            tables: Vec::new(),
            table_ids: crate::fx::FastMap::default(),
            formulas: Vec::new(),
            formula_ids: crate::fx::FastMap::default(),
            roles: Roles {
                hit: 0,
                critical: 0,
                damage: 0,
                critical_damage: 0,
                follow_up: 0,
                backfire: None,
                strikes: None,
                counter: None,
                counter_any_range: None,
                chart: None,
                defender_first: None,
                simultaneous: None,
            },
            dice: Vec::new(),
            dice_ids: crate::fx::FastMap::default(),
            strike_dice: Vec::new(),
            strike_mask: 0,
            dice_formulas: Vec::new(),
            outcome_inputs: None,
            valued_inputs: None,
            strategy: crate::Strategy::FAST,
            inlined: Vec::new(),
            state_formulas: Vec::new(),
            varying: Vec::new(),
            classes_follow_inputs: false,
            reads_moved: false,
            reads_cover: false,
            reads_distance: false,
            sided: false,
            gains: Vec::new(),
            settles: false,
            settle_inputs: None,
            strike_den: 1.0,
            strike_faces: 1,
            strike_cuts: Vec::new(),
            summed_cuts: Vec::new(),
            shapes: Vec::new(),
            shape_ids: crate::fx::FastMap::default(),
            hp_attr: 0,
            state_attrs: Vec::new(),
            effects: crate::fx::FastMap::default(),
            clears: crate::fx::FastMap::default(),
            on_events: Vec::new(),
            item_uses: Vec::new(),
            resources: Vec::new(),
            step_cost: None,
            step_allowed: None,
            respond: None,
            declare_step: None,
            interrupt: None,
            opportunity: None,
            engaged: None,
            free_attack: None,
            courage: None,
            save: None,
            charging: None,
            area: None,
        };
        for name in rules
            .tags
            .iter()
            .map(|t| t.name.as_str())
            .chain(rules.statuses.iter().map(|s| s.name.as_str()))
            .chain(rules.classes.iter().map(|c| c.name.as_str()))
            .chain(rules.weapon_types.iter().map(|w| w.name.as_str()))
            .chain(rules.terrains.iter().map(|t| t.name.as_str()))
            .chain(rules.movements.iter().map(String::as_str))
            .chain(rules.items.iter().map(|i| i.name.as_str()))
        {
            ir.intern(name);
        }
        for (name, ty) in rs.stats.iter().map(|s| (&s.name, &s.ty)).chain(rs.bases.iter().map(|b| (&b.name, &b.ty))) {
            ir.attr_ids.insert(name.clone(), ir.attrs.len() as u16);
            ir.attrs.push((name.clone(), ty.clone()));
        }
        ir.hp_attr = ir.attr_id("hp").ok_or_else(|| EngineError::model("the ruleset has no base `hp`"))?;
        ir.state_attrs = vec![false; ir.attrs.len()];
        for name in std::iter::once("hp").chain(rs.resources.iter().map(|r| r.name.as_str())) {
            if let Some(slot) = ir.attr_id(name).and_then(|a| ir.state_attrs.get_mut(a as usize)) {
                *slot = true;
            }
        }
        for t in &rs.tables {
            let mut sizes = Vec::new();
            for k in &t.keys {
                let s =
                    ir.scale_id(k).ok_or_else(|| EngineError::model(format!("table {} keyed by unknown scale {k}", t.name)))?;
                sizes.push(ir.scale_len(s) as usize);
            }
            let cells = t.cells.iter().map(|c| ir.value(c)).collect::<Result<Vec<_>, _>>()?;
            ir.table_ids.insert(t.name.clone(), ir.tables.len() as u16);
            ir.tables.push(TableIr { sizes, cells });
        }
        // Formulas may only refer to earlier ones: ids are assigned in order.
        for (i, f) in rs.combat.iter().enumerate() {
            ir.formula_ids.insert(f.name.clone(), i as u16);
        }
        // Every dice constant a unit can hold: class and form ratings, bases, tag arguments.
        let forms = rules.classes.iter().filter_map(|c| c.forms.as_ref()).flat_map(|f| [&f.normal, &f.transformed]);
        let constants: Vec<&m::Value> = rules
            .classes
            .iter()
            .flat_map(|c| c.ratings.values().chain(c.tags.iter().flat_map(|t| &t.args)))
            .chain(forms.flat_map(|f| f.ratings.values().chain(f.tags.iter().flat_map(|t| &t.args))))
            .chain(rules.items.iter().flat_map(|i| i.tags.iter().flat_map(|t| &t.args)))
            .chain(rs.bases.iter().map(|b| &b.value))
            .collect();
        for v in constants {
            if let m::Value::Dice(shape) = v {
                ir.intern_shape(shape)?;
            }
        }
        for d in &rs.dice {
            let slot = ir.new_die(&d.shape)?;
            if let Some(die) = ir.dice.get_mut(slot as usize) {
                die.named = true;
            }
            ir.dice_ids.insert((d.name.clone(), false), slot);
        }
        for (i, f) in rs.combat.iter().enumerate() {
            let expr = ir.expr(&f.expr, &[])?;
            // What a formula reads is worked out from the ones before it (the compiler allows no
            // other): a model from elsewhere that refers to a later one is refused.
            if let Some(later) = later_formula(&expr, i) {
                let name = rs.combat.get(later as usize).map_or("?", |g| g.name.as_str());
                return Err(EngineError::model(format!("the formula {} refers to {name}, written after it", f.name)));
            }
            let dice = ir.dice_of(&expr);
            let leaves = ir.independent_leaves(&expr);
            ir.formulas.push(FormulaIr { expr, dice, leaves, reads: Reads::Both });
        }
        ir.hoist_dice_free_parts()?;
        ir.hoist_solo_parts()?;
        ir.dice_formulas = (0..ir.formulas.len())
            .filter_map(|i| ir.formulas.get(i).filter(|f| f.dice != 0).map(|f| (i, f.dice)))
            .filter_map(|(i, dice)| Some((u16::try_from(i).ok()?, dice)))
            .collect();
        let id = |ir: &Ir, n: &str| ir.formula_ids.get(n).copied();
        let need = |ir: &Ir, n: &str| id(ir, n).ok_or_else(|| EngineError::model(format!("the ruleset has no `{n}` formula")));
        ir.roles = Roles {
            hit: need(&ir, "hit")?,
            critical: need(&ir, "critical")?,
            damage: need(&ir, "damage")?,
            critical_damage: need(&ir, "critical_damage")?,
            follow_up: need(&ir, "follow_up")?,
            backfire: id(&ir, "backfire"),
            strikes: id(&ir, "strikes"),
            counter: id(&ir, "counter"),
            counter_any_range: id(&ir, "counter_any_range"),
            chart: id(&ir, "chart"),
            defender_first: id(&ir, "defender_first"),
            simultaneous: id(&ir, "simultaneous"),
        };
        for g in &rs.gains {
            let resource = rs
                .resources
                .iter()
                .position(|r| r.name == g.resource)
                .ok_or_else(|| EngineError::model(format!("a gain names an unknown resource {}", g.resource)))?;
            let value = ir.expr(&g.value, &[])?;
            ir.gains.push(GainIr { struck: g.struck, resource, value });
        }
        // The formulas rerolls roll again.
        let rerolled: Vec<u16> = rs
            .reactions
            .iter()
            .filter_map(|r| r.reroll.as_ref())
            .map(|x| id(&ir, &x.formula).ok_or_else(|| EngineError::model(format!("a reroll names no formula {}", x.formula))))
            .collect::<Result<_, _>>()?;
        ir.settles = !rerolled.is_empty();
        // The dice a strike draws: every slot the combat roles, the gains and the rerolls read.
        let roots: Vec<u16> = ir.roles.strike().collect();
        let mask = roots
            .iter()
            .chain(&rerolled)
            .chain(&ir.roles.chart)
            .filter_map(|f| ir.formulas.get(*f as usize))
            .fold(0u64, |m, f| m | f.dice)
            | ir.gains.iter().fold(0u64, |m, g| m | ir.dice_of(&g.value));
        ir.strike_dice = (0..ir.dice.len() as u8).filter(|i| mask & (1u64 << i) != 0).collect();
        ir.strike_mask = mask;
        // (A strike that settles rerolls or gains reads every value of its dice instead.)
        ir.strike_cuts = ir.strike_dice.iter().map(|s| cuts::cuts(&ir, &roots, *s)).collect();
        ir.summed_cuts = ir.strike_dice.iter().map(|s| cuts::summed(&ir, &roots, *s)).collect();
        ir.outcome_inputs = ir.outcome_inputs();
        ir.valued_inputs = if ir.outcome_inputs.is_none() { ir.valued_inputs() } else { None };
        ir.classes_follow_inputs = ir.classes_follow_inputs();
        ir.inlined = ir.inlined();
        ir.state_formulas = ir.state_formulas();
        ir.varying = ir.varying();
        ir.strike_den = ir.strike_dice.iter().map(|s| ir.dice.get(*s as usize).map_or(1.0, |d| d.dist.den)).product();
        ir.strike_faces = 1;
        // The named and written dice; a `Dice` value (`roll(attacker.damage_dice)`) depends on
        // the units, and each exchange checks the dice its units name (`Exchange::new`).
        for slot in &ir.strike_dice {
            if let Some(d) = ir.dice.get(*slot as usize).filter(|d| d.dynamic.is_none()) {
                ir.strike_faces = ir.strike_faces.saturating_mul(d.dist.values.len() as u64);
            }
        }
        if ir.strike_faces > MAX_JOINT_FACES {
            return Err(EngineError::TooManyFaces { class: None, faces: ir.strike_faces, max: MAX_JOINT_FACES });
        }
        for t in &rules.tags {
            let params: Vec<String> = t.params.iter().map(|p| p.name.clone()).collect();
            let effects = ir.effects_of(&t.effects, &params)?;
            let id = ir.intern(&t.name);
            ir.effects.insert(id, (params, effects));
        }
        for s in &rules.statuses {
            let effects = ir.effects_of(&s.effects, &[])?;
            let id = ir.intern(&s.name);
            ir.effects.insert(id, (Vec::new(), effects));
            let clears = s
                .clears
                .iter()
                .map(|c| Ok(ClearIr { event: c.event, condition: c.condition.as_ref().map(|e| ir.expr(e, &[])).transpose()? }))
                .collect::<Result<_, EngineError>>()?;
            ir.clears.insert(id, clears);
        }
        for (_, effects) in ir.effects.values() {
            for e in effects {
                if let Eff::On { event, .. } = e {
                    if !ir.on_events.contains(event) {
                        ir.on_events.push(*event);
                    }
                }
            }
        }
        ir.item_uses = rules.items.iter().map(|i| ir.effects_of(&i.uses, &[])).collect::<Result<_, _>>()?;
        for r in &rs.resources {
            let attr =
                ir.attr_id(&r.name).ok_or_else(|| EngineError::model(format!("the resource {} has no attribute", r.name)))?;
            let value = ir.expr(&r.value, &[])?;
            ir.resources.push(ResourceIr { attr, value, at: r.at });
        }
        let step: Vec<String> = m::STEP_PARAMS.iter().map(|(n, _)| n.to_string()).collect();
        ir.step_cost = rs.turn.step_cost.as_ref().map(|e| ir.expr(e, &step)).transpose()?;
        ir.step_allowed = rs.turn.step_allowed.as_ref().map(|e| ir.expr(e, &step)).transpose()?;
        ir.respond = rs.turn.respond.as_ref().map(|e| ir.expr(e, &step)).transpose()?;
        ir.declare_step = rs.turn.declare_step.as_ref().map(|e| ir.expr(e, &step)).transpose()?;
        ir.interrupt = rs.turn.interrupt.as_ref().map(|e| ir.expr(e, &step)).transpose()?;
        ir.opportunity = rs.turn.opportunity.as_ref().map(|e| ir.expr(e, &step)).transpose()?;
        ir.engaged = rs.turn.engaged.as_ref().map(|e| ir.expr(e, &step)).transpose()?;
        ir.free_attack = rs.turn.free_attack.as_ref().map(|e| ir.expr(e, &step)).transpose()?;
        if let Some(c) = &rs.courage {
            let params: Vec<String> = m::COURAGE_PARAMS.iter().map(|(n, _)| n.to_string()).collect();
            let roll = |ir: &mut Ir, r: &m::CourageRoll| -> Result<(E, m::BinaryOp, E), EngineError> {
                Ok((ir.expr(&r.roll, &params)?, r.op, ir.expr(&r.target, &params)?))
            };
            let check = roll(&mut ir, &c.check)?;
            let losses = c.losses.as_ref().map(|e| ir.expr(e, &params)).transpose()?;
            let rally = c.rally.as_ref().map(|r| roll(&mut ir, r)).transpose()?;
            ir.courage = Some(CourageIr { check, losses, rally });
        }
        if let Some(save) = rs.leadership.as_ref().and_then(|l| l.save.as_ref()) {
            let params: Vec<String> = m::COURAGE_PARAMS.iter().map(|(n, _)| n.to_string()).collect();
            ir.save = Some((ir.expr(&save.roll, &params)?, save.op, ir.expr(&save.target, &params)?));
        }
        if let Some(c) = &rs.charging {
            let params: Vec<String> = m::COURAGE_PARAMS.iter().map(|(n, _)| n.to_string()).collect();
            ir.charging = Some(ir.expr(&c.with, &params)?);
        }
        if let Some(a) = &rs.area {
            let params: Vec<String> = m::COURAGE_PARAMS.iter().map(|(n, _)| n.to_string()).collect();
            ir.area = Some(ir.expr(&a.within, &params)?);
        }
        let dynamic = ir.dice.iter().filter_map(|d| d.dynamic.as_ref());
        ir.sided = ir
            .formulas
            .iter()
            .map(|f| &f.expr)
            .chain(dynamic)
            .chain(ir.gains.iter().map(|g| &g.value))
            .any(|e| e.any(&|e| matches!(e, E::Unit(_))));
        Ok(ir)
    }
}

/// A formula `e` (the `i`th) refers to that is not before it, if any.
fn later_formula(e: &E, i: usize) -> Option<u16> {
    match e {
        E::Formula(f) if *f as usize >= i => Some(*f),
        _ => e.children().find_map(|c| later_formula(c, i)),
    }
}
