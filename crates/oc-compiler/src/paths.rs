//! Logical paths: `/`-separated, relative to the project root, never climbing above it.

/// Resolves `import` (as written in `importer`) to a logical path, or says why it is refused.
/// How many folders above the project root `import`, written in the file at `importer`, climbs
/// (0 when it stays inside).
pub fn climbs(importer: &str, import: &str) -> usize {
    let mut depth = importer.split('/').count().saturating_sub(1) as i64;
    let mut lowest = depth;
    for piece in import.split(['/', '\\']) {
        match piece {
            "" | "." => {}
            ".." => depth -= 1,
            _ => depth += 1,
        }
        lowest = lowest.min(depth);
    }
    usize::try_from(-lowest).unwrap_or(0)
}

/// Why a path written in a file is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    /// `std:` not followed by a ruleset's name.
    BadStdName,
    /// `std:...` where a file of the project is asked for.
    NamesStd,
    Absolute,
    AboveRoot,
    NoFile,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PathError::BadStdName => "`std:` is followed by the name of a built-in ruleset, such as `std:v06`",
            PathError::NamesStd => "names the standard library, not a file of the project",
            PathError::Absolute => "is an absolute path, and paths stay relative to the project",
            PathError::AboveRoot => "climbs above the project root",
            PathError::NoFile => "names no file",
        })
    }
}

pub fn resolve(importer: &str, import: &str) -> Result<String, PathError> {
    // `import "std:v06"` names a built-in ruleset of the standard library.
    if let Some(name) = import.strip_prefix("std:") {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(PathError::BadStdName);
        }
        return Ok(format!("<std>/{name}.oc"));
    }
    if import.starts_with('/') || import.starts_with('\\') || import.get(1..2) == Some(":") {
        return Err(PathError::Absolute);
    }
    let mut parts: Vec<&str> = importer.split('/').collect();
    parts.pop(); // the importing file's own name
    for piece in import.split(['/', '\\']) {
        match piece {
            "" | "." => {}
            ".." => {
                // The standard library's root `<std>` is as far up as its files may climb.
                if parts.last().is_none_or(|p| *p == "<std>") {
                    return Err(PathError::AboveRoot);
                }
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(PathError::NoFile);
    }
    Ok(parts.join("/"))
}

/// `target` (a project path) as a file at project path `from` names it: relative to `from`'s
/// folder, climbing with `..` where needed (`campaign/a.oc`, `maps/x.map.toml` ->
/// `../maps/x.map.toml`).
pub fn relative(from: &str, target: &str) -> String {
    let mut dir: Vec<&str> = from.split('/').collect();
    dir.pop();
    let parts: Vec<&str> = target.split('/').collect();
    let common = dir.iter().zip(&parts).take_while(|(a, b)| a == b).count();
    let mut out: Vec<&str> = std::iter::repeat_n("..", dir.len() - common).collect();
    out.extend(parts.iter().skip(common));
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn imports_are_relative_and_confined() {
        assert_eq!(resolve("examples/a.oc", "b.oc").as_deref(), Ok("examples/b.oc"));
        assert_eq!(resolve("examples/a.oc", "../tags/t.oc").as_deref(), Ok("tags/t.oc"));
        assert_eq!(resolve("a.oc", "./x/./y.oc").as_deref(), Ok("x/y.oc"));
        assert!(resolve("a.oc", "../outside.oc").is_err());
        assert!(resolve("examples/a.oc", "../../outside.oc").is_err());
        assert!(resolve("a.oc", "/etc/passwd").is_err());
        assert!(resolve("a.oc", "C:/x.oc").is_err());
        assert_eq!(resolve("examples/a.oc", "std:v06").as_deref(), Ok("<std>/v06.oc"));
        assert!(resolve("a.oc", "std:../x").is_err());
        assert_eq!(resolve("<std>/v06/ruleset.oc", "../ratings/world.oc").as_deref(), Ok("<std>/ratings/world.oc"));
        assert!(resolve("<std>/v06.oc", "../x.oc").is_err());
    }
}
