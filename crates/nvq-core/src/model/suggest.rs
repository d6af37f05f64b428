//! "Did you mean": the names closest to a misspelt one (a field, a
//! `--format` token, an option, a scenario key), for nvq's messages.
//!
//! A candidate is close when it is the same name but for case and the
//! separators `.`, `_` and `-` (`Memory.Used`, `memory_used`), when each
//! word of the typed name starts a word of the candidate (`used_mem` for
//! `used_memory`), or when it is a few edits away (`memory.usd`).

/// Up to three candidates closest to `name`, best first; none when nothing
/// is close enough to be a typo.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let typed = normal(name);
    if typed.is_empty() {
        return Vec::new();
    }
    let len = typed.chars().count();
    let limit = if len <= 4 { 1 } else { 2.max(len / 5) };
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|cand| {
            let c = normal(cand);
            let score = if c == typed {
                0
            } else if words_start(&typed, &c) {
                1
            } else {
                let d = distance(&typed, &c);
                if d > limit {
                    return None;
                }
                d + 1
            };
            Some((score, cand))
        })
        .collect();
    scored.sort_by_key(|(s, _)| *s);
    let best = scored.first().map_or(0, |(s, _)| *s);
    let mut out: Vec<&str> = Vec::new();
    for (s, c) in scored {
        if s == best && !out.contains(&c) && out.len() < 3 {
            out.push(c);
        }
    }
    out
}

/// `did you mean "a"?`, `did you mean "a" or "b"?`; `None` without one.
pub fn did_you_mean(names: &[&str]) -> Option<String> {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        [init @ .., last] => Some(format!("did you mean {} or {last}?", init.join(", "))),
    }
}

/// Lower case, with `_` and `-` read as `.`.
fn normal(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| match c {
            '_' | '-' => '.',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Does every word of `typed` start a word of `cand`, each a different one
/// (`used.mem` and `used.memory`, `mem.used` and `memory.used`)?
fn words_start(typed: &str, cand: &str) -> bool {
    let mut words: Vec<&str> = cand.split('.').collect();
    if words.len() != typed.split('.').count() {
        return false;
    }
    for w in typed.split('.') {
        if w.is_empty() {
            return false;
        }
        match words.iter().position(|c| c.starts_with(w)) {
            Some(i) => {
                words.remove(i);
            }
            None => return false,
        }
    }
    true
}

/// Edit distance, a swap of two neighbours counting as one edit (`cvs`
/// is one edit from `csv`).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: the distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[&str] = &[
        "index",
        "memory.used",
        "memory.free",
        "memory.total",
        "used_memory",
        "used_gpu_memory",
        "gpu_uuid",
        "pid",
    ];

    #[test]
    fn typos_case_and_separators() {
        let near = |n| nearest(n, FIELDS.iter().copied());
        assert_eq!(near("memory.usd"), ["memory.used"]);
        assert_eq!(near("Memory.Used"), ["memory.used"]);
        assert_eq!(near("memory_used"), ["memory.used"]);
        assert_eq!(near("used_mem"), ["memory.used", "used_memory"]);
        assert!(near("utterly.different").is_empty());
        assert!(near("").is_empty());
        assert_eq!(distance("memory.fre", "memory.free"), 1);
        assert_eq!(distance("", "ab"), 2);
        assert_eq!(distance("cvs", "csv"), 1);
        assert!(nearest("--\u{fffd}", ["--id"]).is_empty());
    }

    #[test]
    fn the_sentence() {
        assert_eq!(did_you_mean(&[]), None);
        assert_eq!(did_you_mean(&["a"]).unwrap(), "did you mean \"a\"?");
        assert_eq!(
            did_you_mean(&["a", "b", "c"]).unwrap(),
            "did you mean \"a\", \"b\" or \"c\"?"
        );
    }
}
