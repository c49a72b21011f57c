//! Turns a pest error into a diagnostic in the user's words: what was expected, what was found.

use std::collections::BTreeSet;

use oc_diag::{Diagnostic, FileId, Span};
use pest::error::{ErrorVariant, InputLocation};

use crate::lower::Rule;
use crate::SYNTAX_ERROR;

/// What to call a rule in a message, or `None` to leave it out (it is implied by another).
fn describe(rule: Rule) -> Option<&'static str> {
    use Rule::*;
    Some(match rule {
        EOI => "the end of the file",
        ident | name | place => "a name",
        int => "a whole number",
        string | string_inner => "a string in double quotes",
        scale_member => "a scale step such as `C`",
        rating_value => "a rating such as `C` (or a number in a numeric ruleset)",
        row_key => "a row label such as `C`",
        table_value | table_row => "a table value such as `60`",
        bound => "a scale step or a number",
        type_ref => "a type such as `Int`, `Bool` or `Rating`",
        die | dice_sum | rating_dice => DICE,
        die_faces | die_face => DIE_SIDES,
        face_name => "a face's name, as in `d{save=1, melee=100}`",
        damage_kind => "`physical` or `magic`",
        thing_kind => "a kind of thing: `class`, `weapon`, `accessory`, `consumable`, `unit` or `status`",
        target_kind => "a target: `ally`, `enemy`, `enemies`, `unit`, `self`, `self_or_ally`, `tile`, `door` or `chest`",
        verb | command => "an effect such as `heal(target, 2)`",
        event => "an event such as `end_of_turn` or `start_of_round`",
        duration_unit => "`activation` or `round`",
        cost_value => "a movement cost (a number, or `-` for impassable)",
        expr | prefix | neg | not | primary | paren | call | kw_true | kw_false => "an expression",
        postfix | field | index | has | infix | or | and | eq | ne | le | ge | lt | gt | add | sub | mul | div | rem => {
            return None
        }
        import | kw_import => "`import`",
        ruleset | kw_ruleset => "`ruleset`",
        movement_def | kw_movement => "`movement`",
        terrain_def | kw_terrain => "`terrain`",
        weapon_type_def | kw_weapon_type => "`weapon_type`",
        triangle_def | kw_triangle => "`triangle`",
        tag_def | kw_tag => "`tag`",
        status_def | kw_status => "`status`",
        class_def | kw_class => "`class`",
        weapon_def | kw_weapon => "`weapon`",
        accessory_def | kw_accessory => "`accessory`",
        consumable_def | kw_consumable => "`consumable`",
        doc | kw_doc => "`doc`",
        scale_def | kw_scale => "`scale`",
        stat_def | kw_stat => "`stat`",
        base_def | kw_base => "`base`",
        class_range | kw_class_range => "`class_range`",
        inventory_def | kw_inventory => "`inventory`",
        reactions_def | kw_reactions => "`reactions`",
        reactions_mode => "`one` or `many`",
        basic_def | kw_basic => "`basic`",
        weight_range | item_weight | kw_weight => "`weight`",
        dice_def | kw_dice => "`dice`",
        table_def | kw_table => "`table`",
        combat_block | kw_combat => "`combat`",
        formula => "a formula such as `hit = ...`",
        triangle_chain => "a chain such as `Swords > Axes > Lances > Swords`",
        terrain_symbol | kw_symbol => "`symbol`",
        terrain_defense | kw_defense => "`defense`",
        terrain_cost | cost | kw_cost | action_cost => "`cost`",
        action_charge | kw_charge => "`charge`",
        action_sequence | kw_sequence => "`sequence`",
        cost_entry => "a movement type and its cost, such as `Foot 2`",
        terrain_heal | kw_heal => "`heal`",
        terrain_hp | kw_hp => "`hp`",
        terrain_becomes | kw_becomes => "`becomes`",
        terrain_opened_by | kw_opened_by => "`opened_by`",
        terrain_impassable | kw_impassable => "`impassable`",
        terrain_blocks_sight | kw_blocks_sight => "`blocks_sight`",
        turn_sight | kw_line_of_sight => "`line_of_sight`",
        courage_block | kw_courage => "`courage`",
        courage_check | kw_check => "`check`",
        courage_losses | kw_losses => "`losses`",
        courage_routs | kw_routs => "`routs`",
        courage_fear | kw_fear => "`fear`",
        courage_rally | kw_rally => "`rally`",
        courage_pursuit | kw_pursuit => "`pursuit`",
        courage_surrender | kw_surrender => "`surrender`",
        sc_advanced | kw_advanced => "`advanced`",
        leadership_block | kw_leadership => "`leadership`",
        leadership_general | kw_general => "`general`",
        leadership_beyond | kw_beyond => "`beyond`",
        leadership_save | kw_save => "`save`",
        situations_block | kw_situations => "`situations`",
        situation_ground | kw_ground => "`ground`",
        situation_flank | kw_flank => "`flank`",
        situation_blind | kw_blind => "`blind`",
        situation_flying | kw_flying => "`flying`",
        situation_mixed | kw_mixed => "`mixed`",
        situation_rear | kw_rear => "`rear`",
        weather_block | kw_weather => "`weather`",
        weather_face => "a face of the die and its weather, such as `1: Clear`",
        terrain_elevation | kw_elevation => "`elevation`",
        charging_block | kw_charging => "`charging`",
        formations_block | kw_formations => "`formations`",
        formation_tags => "`tags` and the formation tags",
        charging_with => "`with` and the condition a charger meets",
        area_block | kw_area => "`area`",
        area_within => "`within` and how many tiles around its target an attack strikes",
        params | param => "parameters such as `(x: Int)`",
        kw_stacks => "`stacks`",
        tag_kinds | kw_on => "`on`",
        effect_block => "a `{ ... }` block of effects",
        modify_stmt => "an effect such as `movement += x`",
        assign_op => "`+=`, `-=` or `=`",
        when_stmt | kw_when => "`when`",
        on_stmt => "`on EVENT { ... }`",
        grant_stmt | kw_grant => "`grant`",
        action_stmt | kw_action => "`action`",
        action_target | kw_target => "`target`",
        kw_within => "`within`",
        action_requires | kw_requires => "`requires`",
        clears | kw_clears => "`clears`",
        lasts | kw_lasts => "`lasts`",
        kw_at => "`at`",
        tag_ref => "a tag such as `Lucky(5)`",
        tag_list | kw_tags => "`tags`",
        ratings | kw_ratings => "`ratings`",
        rating_entry => "a rating entry such as `str C`",
        wields | kw_wields => "`wields`",
        promoted | kw_promoted => "`promoted`",
        kw_from => "`from`",
        kit | kw_kit => "`kit`",
        if_expr | kw_if => "`if`",
        kw_then => "`then`",
        kw_else => "`else`",
        form_normal | kw_normal => "`normal`",
        form_transformed | kw_transformed => "`transformed`",
        item_type | kw_type => "`type`",
        item_might | kw_might => "`might`",
        item_range | kw_range => "`range`",
        item_use | kw_use => "`use`",
        kw_physical => "`physical`",
        kw_magic => "`magic`",
        kw_staff => "`staff`",
        kw_and => "`and`",
        kw_or => "`or`",
        kw_not => "`not`",
        kw_has => "`has`",
        impassable_mark => "`-`",
        scenario_def | kw_scenario => "`scenario`",
        army_def | kw_army => "`army`",
        sc_map | kw_map => "`map`",
        sc_regions | kw_regions => "`regions`",
        sc_rounds | kw_rounds => "`rounds`",
        outcome => "`attacker`, `defender` or `draw`",
        sc_deploy | kw_deploy => "`deploy first SIDE`",
        kw_first => "`first`",
        side_word | sc_side => "a side: `attacker` or `defender`",
        sd_zone | kw_zone => "`zone`",
        sd_war_chest | kw_war_chest => "`war_chest`",
        sd_units | kw_units => "`units MIN..MAX`",
        sd_limit | limit_kind => "`at_least` or `at_most`",
        amount => "a number or a fraction such as `1/3`",
        selector => "`with TAG`, `class CLASS`, `wielding TYPE` or `ranged`",
        kw_with => "`with`",
        kw_wielding => "`wielding`",
        kw_ranged => "`ranged`",
        sd_grant => "`grant TAG to N`",
        kw_to => "`to`",
        sd_allow | kw_allow => "`allow`",
        sd_ban | kw_ban => "`ban`",
        allow_kind => "`classes` or `items`",
        sd_win | kw_win => "`win`",
        cond | cond_not | cond_paren => "a victory condition such as `seize \"throne\"` or `rout all`",
        cond_op => "`and` or `or`",
        c_seize | kw_seize => "`seize \"REGION\"`",
        c_rout | kw_rout => "`rout all`, `rout N`, `rout leader` or `rout \"UNIT\"`",
        kw_all => "`all`",
        kw_leader => "`leader`",
        c_escape | kw_escape => "`escape N through \"REGION\"`",
        kw_through => "`through`",
        c_defend | kw_defend => "`defend \"REGION\" for N rounds`",
        kw_for => "`for`",
        c_survive | kw_survive => "`survive N rounds`",
        c_raze | kw_raze => "`raze N in \"REGION\"`",
        kw_in => "`in`",
        sc_chest | kw_chest => "`chest [X, Y] ITEM`",
        sc_fog | kw_fog => "`fog` or `fog vision N`",
        kw_vision => "`vision N`",
        unit_def | kw_unit => "`unit NAME: CLASS`",
        unit_items | kw_items => "`items`",
        unit_figures | kw_figures => "`figures`",
        unit_joins | kw_joins => "`joins`",
        unit_tags => "`tags`",
        _ => return None,
    })
}

/// What follows a die's `d`.
const DIE_SIDES: &str = "the number of sides after `d` (`2d6`, `d10!`, `4d6kh3`; or listed faces, `d{0, 1, 2}`)";

/// Dice as the user writes them.
const DICE: &str = "dice (`2d6`, `d10!`, `4d6kh3`)";

const ITEM_WORDS: &[&str] = &[
    "`import`",
    "`ruleset`",
    "`movement`",
    "`terrain`",
    "`weapon_type`",
    "`triangle`",
    "`tag`",
    "`status`",
    "`class`",
    "`weapon`",
    "`accessory`",
    "`consumable`",
    "`scenario`",
    "`army`",
];

pub fn syntax_error(file: FileId, text: &str, base: usize, error: &pest::error::Error<Rule>) -> Diagnostic {
    let mut pos = match error.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    } + base;
    let mut wanted: BTreeSet<&'static str> = BTreeSet::new();
    let mut ordered: Vec<String> = Vec::new();
    let push = |s: String, ordered: &mut Vec<String>| {
        if !ordered.contains(&s) {
            ordered.push(s);
        }
    };
    // The keywords that fit here, for a did-you-mean on a misspelt one.
    let mut keywords: BTreeSet<&'static str> = BTreeSet::new();
    if let ErrorVariant::ParsingError { positives, .. } = &error.variant {
        for rule in positives {
            if let Some(words) = describe(*rule) {
                wanted.insert(words);
            }
            keywords.extend(crate::keywords::first_words(&format!("{rule:?}")));
        }
    }
    // Dice continue across a line break like any sum, so a `+` left at a line's end reads the
    // next line's first word as a die (`dice` as `d` then `ice`): point at the `+` instead.
    let wants_dice = matches!(&error.variant, ErrorVariant::ParsingError { positives, .. }
        if positives.iter().any(|r| matches!(r, Rule::die | Rule::die_faces | Rule::dice_sum | Rule::rating_dice)));
    if wants_dice {
        if let Some(op) = dangling_operator(text, pos) {
            let sign = text.get(op..op + 1).unwrap_or("+");
            return Diagnostic::error(
                SYNTAX_ERROR,
                Span::new(file, op, op + 1),
                format!("expected {DICE} or a whole number after this `{sign}`, found the end of the line"),
            )
            .with_label(format!("`{sign}` with nothing after it on this line"))
            .with_help(format!("finish the sum on this line (`2d6 {sign} 1`), or remove the `{sign}`"));
        }
    }
    let expected_at = pos;
    // Literal punctuation the parser would have accepted (`}`, `:` ...), from pest's detail.
    // pest reports rule failures where the rule started; when a literal inside it failed
    // further on (the `:` of `x: Int`), point there and name the literal.
    let mut punctuation: BTreeSet<String> = BTreeSet::new();
    if let Some(attempts) = error.parse_attempts() {
        for token in attempts.expected_tokens() {
            let token = token.to_string();
            let trivia = matches!(token.as_str(), "/*" | "//" | "\u{FEFF}") || token.chars().all(char::is_whitespace);
            if !trivia && !token.is_empty() && token.chars().all(|c| !c.is_alphanumeric() && c != '_') {
                punctuation.insert(token);
            }
        }
        if attempts.max_position + base > pos && !punctuation.is_empty() {
            pos = attempts.max_position + base;
            wanted.clear();
        }
    }
    let items: Vec<&str> = ITEM_WORDS.iter().copied().filter(|w| wanted.contains(w)).collect();
    if items.len() >= 4 {
        for w in &items {
            wanted.remove(w);
        }
        push("a definition such as `class`, `weapon`, `tag` or `terrain`".to_string(), &mut ordered);
    }
    for w in &wanted {
        push((*w).to_string(), &mut ordered);
    }
    for p in &punctuation {
        // Operators are noise: they are possible after almost any expression.
        if matches!(p.as_str(), "+" | "-" | "*" | "/" | "%" | "<" | ">" | "<=" | ">=" | "==" | "!=" | "." | "+=" | "-=") {
            continue;
        }
        // A die's listed faces open with `{`: said already.
        if p == "{" && wanted.contains(DIE_SIDES) {
            continue;
        }
        push(format!("`{p}`"), &mut ordered);
    }
    let found = found_at(text, pos);
    let message =
        if ordered.is_empty() { format!("unexpected {found}") } else { format!("expected {}, found {found}", join_or(&ordered)) };
    let end = next_token_end(text, pos);
    let label = if ordered.is_empty() { "unexpected here".to_string() } else { format!("expected {}", join_or(&ordered)) };
    let help = match misspelt_keyword(text, pos, &keywords).filter(|_| pos == expected_at) {
        Some(fix) => fix,
        None => help_for(&ordered, text, pos),
    };
    Diagnostic::error(SYNTAX_ERROR, Span::new(file, pos, end), message).with_label(label).with_help(help)
}

/// "did you mean `seize`?" when the word at `pos` is a near miss of a keyword that fits there,
/// the nearest by edit distance; with the keyword before it when that reads better
/// (`rout al` -> "did you mean `all` (`rout all`)?").
fn misspelt_keyword(text: &str, pos: usize, keywords: &BTreeSet<&'static str>) -> Option<String> {
    let rest = text.get(pos..)?;
    let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if word.is_empty() || keywords.contains(word.as_str()) {
        return None;
    }
    let fix = oc_diag::did_you_mean(&word, keywords.iter().copied())?;
    // The token just before, on the same line: shown with the fix when it is a keyword.
    let line_start = text.get(..pos)?.rfind('\n').map_or(0, |i| i + 1);
    let before = text.get(line_start..pos)?.trim_end();
    let previous: String = before.rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("").to_string();
    if !previous.is_empty() && crate::keywords::is_grammar_keyword(&previous) {
        Some(format!("did you mean `{fix}` (`{previous} {fix}`)?"))
    } else {
        Some(format!("did you mean `{fix}`?"))
    }
}

/// The `+` or `-` that ends the line before the one `pos` is on, when nothing but blanks and
/// the start of the word around `pos` lie between them.
fn dangling_operator(text: &str, pos: usize) -> Option<usize> {
    let before = text.get(..pos)?;
    let word_start = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_').len();
    let head = before.get(..word_start)?;
    let trimmed = head.trim_end();
    if !head.get(trimmed.len()..)?.contains('\n') {
        return None;
    }
    trimmed.ends_with(['+', '-']).then(|| trimmed.len() - 1)
}

fn help_for(expected: &[String], text: &str, pos: usize) -> String {
    let found = text.get(pos..).unwrap_or("");
    // The line so far, and the word just before `pos` on it.
    let line = text.get(..pos).map_or("", |before| before.rsplit('\n').next().unwrap_or(""));
    let previous = line.trim_end().rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
    // `figures: 10`, `cost = 40`: an entry's keyword is followed by its value alone.
    if (found.starts_with(':') || found.starts_with('=')) && crate::keywords::is_grammar_keyword(previous) {
        let sign = found.get(..1).unwrap_or(":");
        return format!("write the value right after `{previous}`, with no `{sign}` between them");
    }
    // `figures 10, items ...`: a comma parts the names of a list (`items Axe, Bow`), not entries.
    if found.starts_with(',') && !expected.iter().any(|e| e == "`,`") {
        return "a `,` parts the names of one list (`items Axe, Bow`); entries follow one another without one: `figures 10 items Axe`".to_string();
    }
    // `unit Braves: 10 Savage`: a unit's figures go inside its braces.
    if found.starts_with(|c: char| c.is_ascii_digit()) && line.trim_start().starts_with("unit ") && line.trim_end().ends_with(':')
    {
        return "a unit's figures are written inside its braces, after its class: `unit Braves: Savage { figures 10 items Axe }`"
            .to_string();
    }
    if expected.iter().any(|e| e.contains("`4d6kh3`")) {
        return "a die is written `d` and its sides, after how many to roll: `d100`, `2d6`; `d10!` explodes, `4d6kh3` keeps the highest 3".to_string();
    }
    if expected.iter().any(|e| e.contains("a rating")) {
        return "ratings are steps of the ruleset's scale, worst to best: F E D C B A S (classes use E..A)".to_string();
    }
    if found.starts_with('}') || found.starts_with(')') || found.starts_with(']') {
        return "a closing bracket came too early: finish the entry before it, or remove the bracket".to_string();
    }
    if found.is_empty() {
        return "the file ends in the middle of a definition: finish it or close its braces".to_string();
    }
    if expected.iter().any(|e| e.contains("a definition")) {
        return "top-level definitions start with a keyword such as `class`, `weapon`, `tag` or `terrain`".to_string();
    }
    "see `oc explain oc::syntax::unexpected`; every construct is in the guide's rules language page (docs/dsl.md)".to_string()
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {}", rest.join(", "), last),
    }
}

fn found_at(text: &str, pos: usize) -> String {
    let rest = text.get(pos..).unwrap_or("");
    let Some(first) = rest.chars().next() else { return "the end of the file".to_string() };
    if first.is_alphanumeric() || first == '_' {
        let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').take(40).collect();
        format!("`{word}`")
    } else if first.is_whitespace() {
        "a line break".to_string()
    } else if first.is_control() {
        format!("a control character (U+{:04X})", first as u32)
    } else {
        format!("`{first}`")
    }
}

fn next_token_end(text: &str, pos: usize) -> usize {
    let rest = text.get(pos..).unwrap_or("");
    match rest.chars().next() {
        None => pos,
        Some(c) if c.is_alphanumeric() || c == '_' => {
            let word_end = rest
                .char_indices()
                .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
                .take(40)
                .last()
                .map_or(0, |(i, c)| i + c.len_utf8());
            pos + word_end
        }
        Some(c) => pos + c.len_utf8(),
    }
}
