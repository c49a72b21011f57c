//! What the engine refuses is data: each refusal has a stable code with an explanation
//! (`oc_engine::CODES`), a message and a help line, and one conversion to a diagnostic. Every
//! code is triggered here by a request of its kind.

use oc_diag::{FileId, Span};
use oc_engine::battle::{Act, Battle, BattleError, Rule, Turn};
use oc_engine::{Engine, EngineError, Loadout};

fn ratings() -> Engine {
    Engine::new(oc_compiler::stdlib::default_rules().expect("the standard library compiles")).expect("runs")
}

/// The code of each engine refusal, as a request of its kind gives it.
fn engine_refusals(e: &Engine) -> Vec<EngineError> {
    let forecast = |a: Loadout, d: Loadout, r: i64| e.forecast(&a, &d, r).expect_err("refused");
    vec![
        forecast(Loadout::new("Myrmidn", Some("IronSword")), Loadout::new("Fighter", Some("IronAxe")), 1),
        forecast(Loadout::new("Myrmidon", Some("Vulnerary")), Loadout::new("Fighter", Some("IronAxe")), 1),
        forecast(Loadout::new("Myrmidon", Some("IronAxe")), Loadout::new("Fighter", Some("IronAxe")), 1),
        forecast(Loadout::new("Myrmidon", None), Loadout::new("Fighter", Some("IronAxe")), 1),
        forecast(
            Loadout { statuses: vec!["Silenced".into()], ..Loadout::new("Mage", Some("Fire")) },
            Loadout::new("Fighter", Some("IronAxe")),
            1,
        ),
        forecast(Loadout::new("Myrmidon", Some("IronSword")), Loadout::new("Fighter", Some("IronAxe")), 3),
        oc_engine::Exchange::new(e, &Loadout::new("Myrmidon", Some("IronSword")), &Loadout::new("Fighter", Some("IronAxe")), 1)
            .and_then(|x| x.with_reaction(Some("Dodge")))
            .map(|_| ())
            .expect_err("no reactions in the ratings revision"),
    ]
}

#[test]
fn every_refusal_has_a_code_an_explanation_and_a_help() {
    let e = ratings();
    let mut seen = std::collections::BTreeSet::new();
    for refusal in engine_refusals(&e) {
        let d = refusal.diagnostic(Span::new(FileId(0), 0, 0));
        assert_eq!(d.code, refusal.code());
        assert!(!d.help.is_empty(), "{refusal:?}");
        assert_eq!(d.message, refusal.to_string());
        seen.insert(refusal.code());
    }
    // The unknown class gets the nearest names, by the one did-you-mean.
    assert!(engine_refusals(&e)[0].help().is_some_and(|h| h.contains("`Myrmidon`")));
    for (code, want) in [
        (oc_engine::error_codes::UNKNOWN_NAME, true),
        (oc_engine::error_codes::NOT_A, true),
        (oc_engine::error_codes::CANNOT_WIELD, true),
        (oc_engine::error_codes::UNARMED, true),
        (oc_engine::error_codes::RESTRICTED, true),
        (oc_engine::error_codes::OUT_OF_REACH, true),
        (oc_engine::error_codes::UNKNOWN_REACTION, true),
    ] {
        assert_eq!(seen.contains(code), want, "{code}");
    }
    // A model whose strike rolls too many joint faces, and one the compiler would never write.
    let mut rules = oc_compiler::stdlib::default_rules().expect("compiles");
    for f in rules.ruleset.combat.iter_mut().filter(|f| f.name == "damage") {
        for _ in 0..4 {
            let roll = oc_model::Expr::RollFresh { shape: oc_model::DiceShape::d(100) };
            let sum = oc_model::Expr::Binary {
                op: oc_model::BinaryOp::Add,
                ty: oc_model::Type::Int,
                lhs: Box::new(f.expr.clone()),
                rhs: Box::new(roll),
            };
            f.expr = sum;
        }
    }
    let too_many = Engine::new(rules).map(|_| ()).expect_err("refused");
    assert_eq!(too_many.code(), oc_engine::error_codes::TOO_MANY_FACES);
    let mut broken = oc_compiler::stdlib::default_rules().expect("compiles");
    broken.ruleset.combat.retain(|f| f.name != "hit");
    let model = Engine::new(broken).map(|_| ()).expect_err("refused");
    assert_eq!(model.code(), oc_engine::error_codes::MODEL);
    for info in oc_engine::CODES {
        assert!(info.explanation.len() > 80, "{} needs a longer explanation", info.code);
    }
}

#[test]
fn every_rule_of_a_battles_refusals_has_its_code() {
    let e = ratings();
    let rules = &e.rules;
    assert!(!rules.scenarios.is_empty() || rules.armies.is_empty());
    let all = [
        Rule::NoUnit,
        Rule::Over,
        Rule::Turn,
        Rule::Move,
        Rule::Target,
        Rule::Requirement,
        Rule::Items,
        Rule::Place,
        Rule::Setup,
    ];
    for rule in all {
        let err = BattleError::refused(rule, "why");
        assert!(oc_engine::CODES.iter().any(|c| c.code == err.code()), "{rule:?}");
        let d = err.diagnostic(Span::new(FileId(0), 0, 0));
        assert_eq!((d.message.as_str(), d.code), ("why", rule.code()));
        assert!(!d.help.is_empty());
    }
    // An engine refusal inside a battle keeps its own code.
    let inner = BattleError::from(EngineError::Unarmed { class: "Fighter".into() });
    assert_eq!(inner.code(), oc_engine::error_codes::UNARMED);
    let _ = (Act::Wait, Turn::default(), std::mem::size_of::<Battle>());
}
