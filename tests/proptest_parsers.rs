//! Property tests for every parser of user input: whatever the input, the
//! result is a value or a clean error, never a panic, and values obey the
//! rules the parser documents.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nvq::cli::{self, Parsed};
use nvq::NvqError;
use nvq_core::nvml::select::Identity;
use nvq_core::render::FormatSpec;
use nvq_core::source::QueryMode;
use proptest::prelude::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::time::Duration;

/// Field names of a mode (canonical and aliases), for lists built from them.
fn names(mode: QueryMode) -> Vec<&'static str> {
    mode.fields()
        .iter()
        .flat_map(|f| std::iter::once(f.name).chain(f.aliases.iter().copied()))
        .collect()
}

fn mode() -> impl Strategy<Value = QueryMode> {
    prop::sample::select(QueryMode::ALL.to_vec())
}

/// Text that looks like a field list: names, near-names, commas, spaces.
fn list_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(names(QueryMode::GPU)).prop_map(str::to_string),
        prop::sample::select(names(QueryMode::COMPUTE_APPS)).prop_map(str::to_string),
        "[a-z_.]{0,12}",
        Just(String::new()),
        Just(" ".to_string()),
        any::<String>(),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.join(","))
}

/// Cases per property: sized for a unit suite that runs on every
/// `cargo test` (the cheap properties take 128, `mutated_scenarios`, which
/// parses the whole built-in scenario twice a case, 32). `PROPTEST_CASES=N`
/// runs N of each instead, for a longer search.
fn cases(unit_suite: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(unit_suite)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(128), ..ProptestConfig::default() })]

    /// A field list resolves to one field per token, or names the first
    /// token that is not a field.
    #[test]
    fn field_lists(m in mode(), list in list_like()) {
        let tokens: Vec<&str> = list.split(',').collect();
        match m.resolve(&list) {
            Ok(idx) => {
                prop_assert_eq!(idx.len(), tokens.len());
                for (i, t) in idx.iter().zip(&tokens) {
                    prop_assert_eq!(m.lookup(t), Some(*i));
                }
            }
            Err(NvqError::InvalidField(bad, _)) => {
                let first = tokens.iter().find(|t| m.lookup(t).is_none());
                prop_assert_eq!(first.copied(), Some(bad.as_str()));
            }
            Err(e) => prop_assert!(false, "unexpected error {e:?}"),
        }
    }

    /// Any list of valid names, with duplicates, in any order, resolves.
    #[test]
    fn valid_field_lists_resolve(m in mode(), picks in prop::collection::vec(any::<prop::sample::Index>(), 1..40)) {
        let all = names(m);
        prop_assume!(!all.is_empty());
        let list: Vec<&str> = picks.iter().map(|i| *i.get(&all)).collect();
        let idx = m.resolve(&list.join(",")).unwrap();
        prop_assert_eq!(idx.len(), list.len());
    }

    /// `--format`: anything parses or fails cleanly; a success names a
    /// format; the valid tokens parse in any order.
    #[test]
    fn format_specs(s in prop_oneof![
        any::<String>(),
        prop::collection::vec(prop::sample::select(vec!["csv", "noheader", "nounits", "json", "ndjson", "table", "prometheus", "", " ", "CSV", "x"]), 0..6)
            .prop_map(|v| v.join(",")),
    ]) {
        match FormatSpec::parse(&s) {
            Ok(spec) => {
                let named = s.split(',').any(|t| t == spec.kind.name());
                prop_assert!(named, "{s:?} -> {spec:?}");
            }
            Err(e) => {
                prop_assert_eq!(e.exit_code(), nvq::ExitCode::InvalidArgument);
                prop_assert!(e.to_string().ends_with('\n'));
            }
        }
    }

    #[test]
    fn csv_tokens_in_any_order(perm in Just(vec!["csv", "noheader", "nounits"]).prop_shuffle(), n in 1usize..=3) {
        let s = perm.iter().take(3).copied().collect::<Vec<_>>();
        let mut v: Vec<&str> = s.iter().copied().filter(|t| *t != "csv").take(n - 1).collect();
        v.push("csv");
        let spec = FormatSpec::parse(&v.join(",")).unwrap();
        prop_assert_eq!(spec.noheader, v.contains(&"noheader"));
        prop_assert_eq!(spec.nounits, v.contains(&"nounits"));
    }

    /// `-i`: any element matches or not, never panics; a GPU's own index,
    /// UUID (any case) and bus id (long or short) always match it.
    #[test]
    fn gpu_ids(id in any::<String>(), index in 0u32..10_000, bus in 0u32..256, dev in 0u32..32, uuid_hex in "[0-9a-f]{8}") {
        let g = Identity {
            index,
            uuid: Some(format!("GPU-{uuid_hex}-0000-4000-8000-000000000000")),
            serial: Some("1650123456789".into()),
            bus_id: Some(format!("00000000:{bus:02X}:{dev:02X}.0")),
        };
        let _ = g.matches(&id);
        for element in id.split(',').map(str::trim) {
            let _ = g.matches(element);
        }
        prop_assert!(g.matches(&index.to_string()));
        let upper = format!("GPU-{}-0000-4000-8000-000000000000", uuid_hex.to_uppercase());
        let short = format!("{bus:02x}:{dev:02x}.0");
        let long = format!("0000:{bus:02X}:{dev:02X}.0");
        prop_assert!(g.matches(&upper), "{}", upper);
        prop_assert!(g.matches(&short), "{}", short);
        prop_assert!(g.matches(&long), "{}", long);
        prop_assert!(!g.matches(&(u64::from(index) + 1).to_string()));
        prop_assert!(!g.matches(""));
    }

    /// Intervals and counts: a value is always within bounds; whole numbers
    /// in range are accepted exactly.
    #[test]
    fn intervals_and_counts(s in prop_oneof![any::<String>(), "-?[0-9]{0,22}", "[0-9]{1,6}(\\.[0-9])?"]) {
        use cli::value::{Count, LoopMillis, LoopSecs};
        if let Ok(LoopSecs(d)) = LoopSecs::parse(&s) {
            prop_assert!(d > Duration::ZERO && d <= Duration::from_secs(86_400));
        }
        if let Ok(LoopMillis(d)) = LoopMillis::parse(&s) {
            prop_assert!(d > Duration::ZERO && d <= Duration::from_secs(86_400));
        }
        if let Ok(Count(n)) = Count::parse(&s) {
            prop_assert!(n > 0);
        }
        for r in [LoopSecs::parse(&s).err(), LoopMillis::parse(&s).err(), Count::parse(&s).err()].into_iter().flatten() {
            prop_assert_eq!(r.exit_code(), nvq::ExitCode::InvalidArgument);
        }
    }

    #[test]
    fn whole_numbers_in_range(n in 1u64..=86_400) {
        use cli::value::{Count, LoopMillis, LoopSecs};
        prop_assert_eq!(LoopSecs::parse(&n.to_string()).unwrap().0, Duration::from_secs(n));
        prop_assert_eq!(LoopMillis::parse(&(n * 1000).to_string()).unwrap().0, Duration::from_secs(n));
        prop_assert_eq!(Count::parse(&n.to_string()).unwrap().0, n);
    }

    /// Scenario files: arbitrary text, and the built-in scenario cut short or
    /// with bytes changed, parse or fail with an error, never a panic.
    #[test]
    fn scenario_text(s in any::<String>()) {
        let _ = nvml_sim::scenario::Scenario::parse(&s, "prop");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(32), ..ProptestConfig::default() })]

    #[test]
    fn mutated_scenarios(cut in any::<prop::sample::Index>(), edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec!["", "\"", "[", "]", "=", "-1", "99999999999999999999999", "\n", "[[device]]\n", "x", "1.5", "{", "}", ","])), 0..6)) {
        let base = include_str!("../nvml-sim/scenarios/default.toml");
        let mut text = base.to_string();
        for (at, what) in &edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            text.insert_str(i, what);
        }
        let mut end = cut.index(text.len() + 1);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let _ = nvml_sim::scenario::Scenario::parse(&text, "prop");
        let _ = nvml_sim::scenario::Scenario::parse(&text[..end], "prop");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(128), ..ProptestConfig::default() })]

    /// The whole command line: any argv parses to arguments, help text or
    /// a clean error with a documented exit code.
    #[test]
    fn argv(args in prop::collection::vec(prop_oneof![
        prop::sample::select(vec![
            "--query-gpu=index", "--query-compute-apps", "--format", "--format=csv", "-i", "--id=0",
            "-f", "-l", "-lms", "-lms=5", "--loop=2", "--loop-ms", "--count", "-L", "--version",
            "-h", "--help", "--help-query-gpu", "-q", "dmon", "--", "-", "=", "--nvml-lib", "--simulate",
            "--where", "--assert", "--until", "--timeout", "--summary",
        ]).prop_map(OsString::from),
        any::<String>().prop_map(OsString::from),
        prop::collection::vec(any::<u8>(), 0..12).prop_map(OsString::from_vec),
    ], 0..8)) {
        match cli::parse(args) {
            Ok(Parsed::Run(_)) | Ok(Parsed::Help(_)) => {}
            Err(e) => {
                let code = e.exit_code();
                prop_assert!(nvq::ExitCode::ALL.iter().any(|(c, _)| *c == code));
                prop_assert!(e.to_string().ends_with('\n'));
            }
        }
    }
}
