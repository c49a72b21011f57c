//! Alignment across lines: the rows of a table as a grid, and trailing comments in columns.
//!
//! A table's row lines are cut into cells: the row key part (`F:`, `Low, High:`), left aligned
//! and padded to the widest in its column, then one space; each value right aligned to the width
//! of the table's widest value, two spaces after it. Block comments between cells are kept as
//! they are. Lines holding the table's braces, and comment lines, are not part of the grid.
//! Trailing `//` comments of neighbouring lines start in one column, two spaces after the
//! longest code among them.

use std::collections::BTreeMap;

use crate::lex::Kind;
use crate::line::{spaced, Cell, CellKind, OutLine, Role, Tok};

/// Cuts the tokens of a table row line into cells.
pub fn cells(toks: &[Tok<'_>]) -> Vec<Cell> {
    let mut cells = Vec::new();
    let mut i = 0;
    while let Some(tok) = toks.get(i) {
        let key_end = key_end(toks, i);
        let end = match key_end {
            Some(end) => end,
            None if matches!(tok.role, Role::Sign | Role::Prefix) && toks.get(i + 1).is_some_and(|t| !t.is_comment()) => i + 2,
            None => i + 1,
        };
        let mut text = String::new();
        for k in i..end {
            let Some(t) = toks.get(k) else { break };
            if k > i && toks.get(k - 1).is_some_and(|p| spaced(p, t)) {
                text.push(' ');
            }
            text.push_str(t.text);
        }
        let kind = match key_end {
            Some(_) => CellKind::Key,
            None if tok.is_comment() => CellKind::Comment,
            None => CellKind::Value,
        };
        cells.push(Cell { text, kind });
        i = end.max(i + 1);
    }
    cells
}

/// Where a row key part `NAME (, NAME)* :` starting at `i` ends, if one does.
fn key_end(toks: &[Tok<'_>], mut i: usize) -> Option<usize> {
    loop {
        if !matches!(toks.get(i)?.kind, Kind::Word | Kind::Dice) {
            return None;
        }
        let after = toks.get(i + 1)?;
        if after.is(":") {
            return Some(i + 2);
        }
        if !after.is(",") {
            return None;
        }
        i += 2;
    }
}

fn width(text: &str) -> usize {
    text.chars().count()
}

/// Renders the row lines of every table as one grid per table.
pub fn align_tables(lines: &mut [OutLine]) {
    let mut tables: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (n, line) in lines.iter().enumerate() {
        if let Some((table, _)) = &line.grid {
            tables.entry(*table).or_default().push(n);
        }
    }
    for rows in tables.values() {
        let grids = || rows.iter().filter_map(|&n| lines.get(n)).filter_map(|l| l.grid.as_ref().map(|g| &g.1));
        // Every value of a table gets the width of the widest; key parts are as wide as the
        // widest in their column.
        let value_width = grids().flatten().filter(|c| c.kind == CellKind::Value).map(|c| width(&c.text)).max().unwrap_or(0);
        let mut key_widths: Vec<usize> = Vec::new();
        for cells in grids() {
            for (j, cell) in cells.iter().enumerate() {
                if key_widths.len() <= j {
                    key_widths.push(0);
                }
                if let (Some(w), CellKind::Key) = (key_widths.get_mut(j), cell.kind) {
                    *w = (*w).max(width(&cell.text));
                }
            }
        }
        for &n in rows {
            let Some(line) = lines.get_mut(n) else { continue };
            let Some((_, cells)) = &line.grid else { continue };
            let mut code = String::new();
            for (j, cell) in cells.iter().enumerate() {
                if j > 0 {
                    let after_key = cells.get(j - 1).is_some_and(|c| c.kind == CellKind::Key);
                    code.push_str(if after_key { " " } else { "  " });
                }
                match cell.kind {
                    CellKind::Key => {
                        let pad = key_widths.get(j).copied().unwrap_or(0).saturating_sub(width(&cell.text));
                        code.push_str(&cell.text);
                        code.push_str(&" ".repeat(pad));
                    }
                    CellKind::Value => {
                        code.push_str(&" ".repeat(value_width.saturating_sub(width(&cell.text))));
                        code.push_str(&cell.text);
                    }
                    CellKind::Comment => code.push_str(&cell.text),
                }
            }
            line.code = code.trim_end().to_string();
        }
    }
}

/// Sets where each trailing comment starts: runs of neighbouring lines that all end with one
/// share a column.
pub fn align_comments(lines: &mut [OutLine]) {
    let trailing = |l: &OutLine| l.comment.is_some() && !l.code.is_empty();
    // A block comment spanning lines: its last line is not indented.
    let last_width = |l: &OutLine| match l.code.rsplit_once('\n') {
        Some((_, last)) => width(last),
        None => l.indent + width(&l.code),
    };
    let mut n = 0;
    while n < lines.len() {
        if !lines.get(n).is_some_and(trailing) {
            n += 1;
            continue;
        }
        let mut end = n + 1;
        while lines.get(end).is_some_and(|l| trailing(l) && !l.blank_before && !l.code.contains('\n'))
            && lines.get(end - 1).is_some_and(|l| !l.code.contains('\n'))
        {
            end += 1;
        }
        let column = lines.get(n..end).unwrap_or(&[]).iter().map(last_width).max().unwrap_or(0) + 2;
        for line in lines.get_mut(n..end).unwrap_or(&mut []) {
            line.comment_at = column;
        }
        n = end;
    }
}
