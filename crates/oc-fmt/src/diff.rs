//! A unified line diff (`--- old`, `+++ new`, `@@ -a,n +b,m @@` hunks with three lines of
//! context), for `oc fmt --check`. Lines are compared with their line ends, so a missing final
//! newline or a `\r\n` shows as a change. Myers' algorithm; past [`MAX_EDITS`] differing lines
//! the changed middle is shown as one replacement.

/// Beyond this many inserted and deleted lines the diff is not minimised.
pub const MAX_EDITS: usize = 2000;
const CONTEXT: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    Keep,
    Delete,
    Insert,
}

/// The unified diff from `old` to `new`; empty when they are equal.
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let edits = edit_script(&a, &b);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    for hunk in hunks(&edits) {
        render_hunk(&mut out, &edits, hunk, &a, &b);
    }
    out
}

/// The edits turning `a` into `b`: common ends kept, the middle by Myers (or replaced whole).
fn edit_script(a: &[&str], b: &[&str]) -> Vec<Edit> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a_rest, b_rest) = (a.get(prefix..).unwrap_or(&[]), b.get(prefix..).unwrap_or(&[]));
    let suffix = a_rest.iter().rev().zip(b_rest.iter().rev()).take_while(|(x, y)| x == y).count();
    let a_mid = a_rest.get(..a_rest.len() - suffix).unwrap_or(&[]);
    let b_mid = b_rest.get(..b_rest.len() - suffix).unwrap_or(&[]);
    let middle = myers(a_mid, b_mid).unwrap_or_else(|| {
        let mut whole = vec![Edit::Delete; a_mid.len()];
        whole.extend(std::iter::repeat_n(Edit::Insert, b_mid.len()));
        whole
    });
    let mut edits = vec![Edit::Keep; prefix];
    edits.extend(middle);
    edits.extend(std::iter::repeat_n(Edit::Keep, suffix));
    edits
}

/// Myers' shortest edit script, or `None` past [`MAX_EDITS`].
fn myers(a: &[&str], b: &[&str]) -> Option<Vec<Edit>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = n + m;
    let off = max + 1;
    let mut v = vec![0isize; (2 * max + 3) as usize];
    let at = |v: &Vec<isize>, k: isize| v.get((off + k) as usize).copied().unwrap_or(0);
    // trace[d] holds v for k in -d..=d after round d.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=max.min(MAX_EDITS as isize) {
        for k in (-d..=d).step_by(2) {
            let down = k == -d || (k != d && at(&v, k - 1) < at(&v, k + 1));
            let mut x = if down { at(&v, k + 1) } else { at(&v, k - 1) + 1 };
            let mut y = x - k;
            while x < n && y < m && a.get(x as usize) == b.get(y as usize) {
                x += 1;
                y += 1;
            }
            if let Some(slot) = v.get_mut((off + k) as usize) {
                *slot = x;
            }
            if x >= n && y >= m {
                return Some(backtrack(&trace, d, n, m));
            }
        }
        trace.push(v.get((off - d) as usize..=(off + d) as usize).unwrap_or(&[]).to_vec());
    }
    None
}

fn backtrack(trace: &[Vec<isize>], found: isize, n: isize, m: isize) -> Vec<Edit> {
    let mut edits = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..=found).rev() {
        let prev = |k: isize| trace.get((d - 1) as usize).and_then(|row| row.get((k + d - 1) as usize)).copied().unwrap_or(0);
        let k = x - y;
        let down = k == -d || (k != d && prev(k - 1) < prev(k + 1));
        let prev_k = if down { k + 1 } else { k - 1 };
        let prev_x = prev(prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            edits.push(Edit::Keep);
            x -= 1;
            y -= 1;
        }
        edits.push(if down { Edit::Insert } else { Edit::Delete });
        (x, y) = (prev_x, prev_y);
    }
    while x > 0 && y > 0 {
        edits.push(Edit::Keep);
        x -= 1;
        y -= 1;
    }
    edits.reverse();
    edits
}

/// Ranges of `edits` to show: each change with up to three kept lines around it.
fn hunks(edits: &[Edit]) -> Vec<std::ops::Range<usize>> {
    let mut hunks: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        if *e == Edit::Keep {
            continue;
        }
        let start = i.saturating_sub(CONTEXT);
        let end = (i + 1 + CONTEXT).min(edits.len());
        match hunks.last_mut() {
            Some(last) if start <= last.end => last.end = last.end.max(end),
            _ => hunks.push(start..end),
        }
    }
    hunks
}

fn render_hunk(out: &mut String, edits: &[Edit], hunk: std::ops::Range<usize>, a: &[&str], b: &[&str]) {
    // Line positions at the hunk's start.
    let before = edits.get(..hunk.start).unwrap_or(&[]);
    let a_from = before.iter().filter(|e| **e != Edit::Insert).count();
    let b_from = before.iter().filter(|e| **e != Edit::Delete).count();
    let shown = edits.get(hunk).unwrap_or(&[]);
    let a_len = shown.iter().filter(|e| **e != Edit::Insert).count();
    let b_len = shown.iter().filter(|e| **e != Edit::Delete).count();
    let start = |from: usize, len: usize| if len == 0 { from } else { from + 1 };
    out.push_str(&format!("@@ -{},{a_len} +{},{b_len} @@\n", start(a_from, a_len), start(b_from, b_len)));
    let (mut i, mut j) = (a_from, b_from);
    for e in shown {
        let (mark, line) = match e {
            Edit::Keep => {
                i += 1;
                j += 1;
                (' ', a.get(i - 1))
            }
            Edit::Delete => {
                i += 1;
                ('-', a.get(i - 1))
            }
            Edit::Insert => {
                j += 1;
                ('+', b.get(j - 1))
            }
        };
        let line = line.copied().unwrap_or("");
        out.push(mark);
        match line.strip_suffix('\n') {
            Some(body) => {
                out.push_str(body);
                out.push('\n');
            }
            None => {
                out.push_str(line);
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn a_changed_line_in_the_middle() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(unified("x", "y", old, new), "--- x\n+++ y\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n");
    }

    #[test]
    fn far_apart_changes_are_two_hunks_and_a_missing_newline_shows() {
        let old: String = (0..20).map(|i| format!("{i}\n")).collect::<String>() + "end";
        let new = old.replace("\n2\n", "\ntwo\n").replace("end", "end\n");
        let diff = unified("x", "y", &old, &new);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(diff.contains("-2\n+two\n"), "{diff}");
        assert!(diff.contains("-end\n\\ No newline at end of file\n+end\n"), "{diff}");
        assert_eq!(unified("x", "y", "same", "same"), "");
    }

    #[test]
    fn insertions_and_deletions_at_the_ends() {
        assert_eq!(unified("x", "y", "", "a\n"), "--- x\n+++ y\n@@ -0,0 +1,1 @@\n+a\n");
        assert_eq!(unified("x", "y", "a\nb\n", "b\n"), "--- x\n+++ y\n@@ -1,2 +1,1 @@\n-a\n b\n");
    }
}
