//! `oc explain`: every diagnostic code of every crate, listed, found (with a near name when
//! one is mistyped) and explained.

use oc_diag::CodeInfo;

/// Every code, crate by crate.
pub fn all_codes() -> impl Iterator<Item = &'static CodeInfo> {
    oc_compiler::all_codes()
        .chain(oc_atlas::CODES.iter())
        .chain(oc_atlas::tiled::CODES.iter())
        .chain(oc_atlas::export::palette_codes::CODES.iter())
        .chain(oc_project::codes::CODES.iter())
        .chain(oc_play::briefing::CODES.iter())
        .chain(oc_balance::CODES.iter())
        .chain(oc_engine::CODES.iter())
        .chain(oc_play::tune::CODES.iter())
        .chain(oc_play::session::CODES.iter())
}

/// `oc explain --list`: a line per code with its title.
pub fn list() -> String {
    all_codes().map(|info| format!("{:<34} {}\n", info.code, info.title)).collect()
}

/// The list as JSON: `[{"code", "title"}, ...]`.
pub fn list_json() -> serde_json::Value {
    serde_json::Value::Array(all_codes().map(|i| serde_json::json!({"code": i.code, "title": i.title})).collect())
}

/// The code `code` names (`oc::` may be left out); else what to say, with a near code.
pub fn find(code: &str) -> Result<&'static CodeInfo, String> {
    let wanted = if code.starts_with("oc::") { code.to_string() } else { format!("oc::{code}") };
    if let Some(info) = all_codes().find(|i| i.code == wanted) {
        return Ok(info);
    }
    // A code's last part alone (`unknown_tag`): the codes that end so.
    let tail = format!("::{}", code.rsplit("::").next().unwrap_or(code));
    let ending: Vec<&str> = all_codes().map(|i| i.code).filter(|c| c.ends_with(&tail)).collect();
    Err(match (ending.as_slice(), oc_diag::did_you_mean(&wanted, all_codes().map(|i| i.code))) {
        ([one], _) => format!("no diagnostic code `{code}`; did you mean `{one}`?"),
        ([_, _, ..], _) => format!("no diagnostic code `{code}`; did you mean one of {}?", oc_diag::first_and_more(&ending, 6)),
        ([], Some(s)) => format!("no diagnostic code `{code}`; did you mean `{s}`?"),
        ([], None) => format!("no diagnostic code `{code}`"),
    })
}

/// One code's explanation as JSON (`oc explain CODE --format json`).
pub fn json(info: &CodeInfo) -> serde_json::Value {
    serde_json::json!({"code": info.code, "title": info.title, "explanation": info.explanation})
}

/// A code's explanation as `oc explain CODE` prints it.
pub fn text(info: &CodeInfo) -> String {
    format!("{}: {}\n\n{}\n", info.code, info.title, info.explanation)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn a_code_s_last_part_alone_is_taken_for_the_code() {
        assert!(find("unknown_tag").is_err_and(|e| e.contains("did you mean `oc::name::unknown_tag`?")));
        assert!(find("oc::name::unknown_tg").is_err_and(|e| e.contains("`oc::name::unknown_tag`")));
    }

    #[test]
    fn every_code_is_listed_once_and_found_by_its_short_name() {
        let codes: Vec<&str> = all_codes().map(|i| i.code).collect();
        let mut unique = codes.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), codes.len(), "a code is never reused");
        assert_eq!(list().lines().count(), codes.len());
        let first = codes[0];
        assert_eq!(find(first.trim_start_matches("oc::")).map(|i| i.code), Ok(first));
        let typo = format!("{}x", first);
        assert!(find(&typo).unwrap_err().contains("did you mean"));
        assert!(text(find(first).unwrap()).starts_with(&format!("{first}: ")));
    }
}
