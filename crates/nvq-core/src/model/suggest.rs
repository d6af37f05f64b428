//! "Did you mean": the names closest to a misspelt one (a field, a
//! `--format` token, an option, a scenario key), for nvq's messages.
//!
//! A candidate is close when it is the same name but for case and the
//! separators `.`, `_` and `-` (`Memory.Used`, `memory_used`), when each
//! word of the typed name starts a word of the candidate (`used_mem` for
//! `used_memory`), or when it is a few edits away (`memory.usd`).

/// Up to three candidates closest to `name`, best first; none when nothing
/// is close enough to be a typo.
///
/// A name longer than [`LONGEST_SUGGESTED`] characters has no suggestion
/// (no name nvq knows is half as long), and a candidate whose length is
/// further from the typed name's than the edits allowed is not measured:
/// a 120 KB name is refused at once, not after an edit distance of
/// 120 K x 30 cells per candidate.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    if name.len() > LONGEST_SUGGESTED * 4 || name.chars().count() > LONGEST_SUGGESTED {
        return Vec::new();
    }
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
                if c.chars().count().abs_diff(len) > limit {
                    return None;
                }
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

/// The longest name [`nearest`] looks for a suggestion for, in characters.
pub const LONGEST_SUGGESTED: usize = 128;

/// The longest part of a typed name that a message quotes, in characters.
pub const LONGEST_QUOTED: usize = 80;

/// A typed name as a message quotes it: whole up to [`LONGEST_QUOTED`]
/// characters, else its start, `...` and its length in bytes, so that a
/// 120 KB name makes a short message.
pub fn clip(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(LONGEST_QUOTED) {
        None => std::borrow::Cow::Borrowed(name),
        Some((end, _)) => {
            std::borrow::Cow::Owned(format!("{}... ({} bytes)", &name[..end], name.len()))
        }
    }
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
/// is one edit from `csv`): the optimal string alignment distance.
pub fn distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_name_gets_no_suggestion_at_once_and_a_short_quote() {
        let huge = "memory.used".repeat(10_000);
        let t0 = std::time::Instant::now();
        assert!(nearest(&huge, ["memory.used", "memory.free"]).is_empty());
        assert!(t0.elapsed() < std::time::Duration::from_secs(1));
        let q = clip(&huge);
        assert!(q.starts_with("memory.usedmemory.used") && q.ends_with("... (110000 bytes)"));
        assert!(q.len() < 120);
        assert_eq!(clip("memory.usd"), "memory.usd");
        // A long name near a short one is not measured either.
        assert!(nearest(&"x".repeat(60), ["memory.used"]).is_empty());
        assert_eq!(nearest("memory.usd", ["memory.used"]), ["memory.used"]);
    }

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
