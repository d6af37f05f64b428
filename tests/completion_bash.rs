//! Bash completion, for real: a `bash --norc --noprofile` sources the
//! generated script, gets the completion function from `complete -p nvq`,
//! sets COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT the way readline would
//! for a command line, calls the function and prints COMPREPLY.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nvq_core::source::QueryMode;
use nvq_dev as generate;

fn have_bash() -> bool {
    crate::common::require_tool("bash").is_some()
}

/// Split a command line into COMP_WORDS as bash does: whitespace separates
/// words, and a run of COMP_WORDBREAKS characters is a word of its own.
/// Returns the words; the last one is the word under the cursor (at the end).
fn comp_words(line: &str, breaks: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_is_break = false;
    for c in line.chars() {
        if c.is_whitespace() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let is_break = breaks.contains(c);
        if !cur.is_empty() && is_break != cur_is_break {
            words.push(std::mem::take(&mut cur));
        }
        cur_is_break = is_break;
        cur.push(c);
    }
    if !cur.is_empty() || line.ends_with(char::is_whitespace) {
        words.push(cur);
    }
    words
}

/// Bash's default COMP_WORDBREAKS (less the whitespace).
const DEFAULT_BREAKS: &str = "\"'><=;|&(:";

/// Complete `line` (cursor at its end) and return COMPREPLY.
fn complete_with(line: &str, breaks: &str) -> Vec<String> {
    let script = generate::completion(clap_complete::Shell::Bash).unwrap();
    let mut file = tempfile::Builder::new().suffix(".bash").tempfile().unwrap();
    std::io::Write::write_all(&mut file, script.as_bytes()).unwrap();
    let words = comp_words(line, breaks);
    let driver = r#"
        set -u
        source "$NVQ_COMPLETION" || exit 90
        spec="$(complete -p nvq)" || exit 91
        func="${spec#*-F }"; func="${func%% *}"
        COMP_WORDS=("$@")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE="$NVQ_LINE"
        COMP_POINT=${#COMP_LINE}
        COMP_WORDBREAKS="$NVQ_BREAKS"
        prev=""
        if (( COMP_CWORD > 0 )); then prev="${COMP_WORDS[COMP_CWORD-1]}"; fi
        COMPREPLY=()
        "$func" nvq "${COMP_WORDS[COMP_CWORD]}" "$prev" 2>/dev/null
        for r in "${COMPREPLY[@]}"; do printf '%s\n' "$r"; done
    "#;
    let out = crate::common::command("bash")
        .args(["--norc", "--noprofile", "-c", driver, "bash"])
        .args(&words)
        .env("NVQ_COMPLETION", file.path())
        .env("NVQ_LINE", line)
        .env("NVQ_BREAKS", format!(" \t\n{breaks}"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bash failed for {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    got.sort();
    got
}

fn complete(line: &str) -> Vec<String> {
    complete_with(line, DEFAULT_BREAKS)
}

/// Every spelling the registry accepts for a mode (names and aliases) that
/// starts with `prefix`, each preceded by `lead`, sorted.
fn expected(mode: QueryMode, lead: &str, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = mode
        .fields()
        .iter()
        .flat_map(|f| std::iter::once(f.name).chain(f.aliases.iter().copied()))
        .filter(|n| n.starts_with(prefix))
        .map(|n| format!("{lead}{n}"))
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn field_names_complete_after_query_gpu_equals() {
    if !have_bash() {
        return;
    }
    let got = complete("nvq --query-gpu=mem");
    assert!(got.contains(&"memory.used".to_string()), "{got:?}");
    assert_eq!(got, expected(QueryMode::GPU, "", "mem"));
    // Right after the '=': every field.
    assert_eq!(
        complete("nvq --query-gpu="),
        expected(QueryMode::GPU, "", "")
    );
    // The option and its value as two words.
    assert_eq!(
        complete("nvq --query-gpu mem"),
        expected(QueryMode::GPU, "", "mem")
    );
}

#[test]
fn field_names_complete_after_each_comma() {
    if !have_bash() {
        return;
    }
    let got = complete("nvq --query-gpu=memory.used,temp");
    assert!(
        got.contains(&"memory.used,temperature.gpu".to_string()),
        "{got:?}"
    );
    assert_eq!(got, expected(QueryMode::GPU, "memory.used,", "temp"));
    let got = complete("nvq -i 0 --query-gpu=index,name,memory.");
    assert_eq!(got, expected(QueryMode::GPU, "index,name,", "memory."));
    assert!(got.len() > 1, "{got:?}");
}

#[test]
fn field_names_complete_when_equals_is_not_a_word_break() {
    if !have_bash() {
        return;
    }
    let breaks: String = DEFAULT_BREAKS.chars().filter(|&c| c != '=').collect();
    let got = complete_with("nvq --query-gpu=memory.used,temp", &breaks);
    assert_eq!(
        got,
        expected(QueryMode::GPU, "--query-gpu=memory.used,", "temp")
    );
    assert!(got.contains(&"--query-gpu=memory.used,temperature.gpu".to_string()));
}

#[test]
fn every_query_mode_completes_its_own_fields() {
    if !have_bash() {
        return;
    }
    for mode in QueryMode::ALL {
        let all = expected(mode, "", "");
        let got = complete(&format!("nvq --{}=", mode.option()));
        assert_eq!(got, all, "--{}", mode.option());
        if let Some(first) = mode.fields().first() {
            let prefix: String = first.name.chars().take(3).collect();
            let line = format!("nvq --{}={},{prefix}", mode.option(), first.name);
            let want = expected(mode, &format!("{},", first.name), &prefix);
            assert_eq!(complete(&line), want, "{line}");
        }
    }
}

#[test]
fn format_tokens_complete() {
    if !have_bash() {
        return;
    }
    let got = complete("nvq --query-gpu=index --format=");
    assert!(got.contains(&"csv".to_string()), "{got:?}");
    for m in generate::FORMAT_MODIFIERS {
        assert!(got.contains(&m.to_string()), "{got:?}");
    }
    assert_eq!(
        complete("nvq --query-gpu=index --format=csv,no"),
        vec!["csv,noheader".to_string(), "csv,nounits".to_string()]
    );
}

#[test]
fn plain_options_complete_through_clap() {
    if !have_bash() {
        return;
    }
    let longs: Vec<String> = nvq::cli::command()
        .get_arguments()
        .filter_map(|a| a.get_long())
        .map(|l| format!("--{l}"))
        .collect();
    let want = |p: &str| {
        let mut v: Vec<String> = longs.iter().filter(|l| l.starts_with(p)).cloned().collect();
        v.sort();
        v
    };
    let got = complete("nvq --for");
    assert_eq!(got, vec!["--format".to_string()]);
    assert_eq!(got, want("--for"));
    let got = complete("nvq --query-gpu=index --format=csv --help-q");
    assert!(got.len() >= 6, "{got:?}");
    assert_eq!(got, want("--help-q"));
}

#[test]
fn word_splitting_matches_bash() {
    assert_eq!(
        comp_words("nvq --query-gpu=a,b", DEFAULT_BREAKS),
        ["nvq", "--query-gpu", "=", "a,b"]
    );
    assert_eq!(
        comp_words("nvq --query-gpu=", DEFAULT_BREAKS),
        ["nvq", "--query-gpu", "="]
    );
    assert_eq!(comp_words("nvq ", DEFAULT_BREAKS), ["nvq", ""]);
}

// Other shells, checked when they are installed (CI has bash only).

fn have(shell: &str) -> bool {
    crate::common::require_tool(shell).is_some()
}

fn script_file(shell: clap_complete::Shell, suffix: &str) -> tempfile::NamedTempFile {
    let script = generate::completion(shell).unwrap();
    let mut file = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
    std::io::Write::write_all(&mut file, script.as_bytes()).unwrap();
    file
}

#[test]
fn fish_completes_field_lists() {
    if !have("fish") {
        return;
    }
    let file = script_file(clap_complete::Shell::Fish, ".fish");
    let out = crate::common::command("fish")
        .args(["--no-config", "-c"])
        .arg("source $argv[1]; complete -C 'nvq --query-gpu=memory.used,temp'; complete -C 'nvq --for'")
        .arg(file.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut got: Vec<&str> = text
        .lines()
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect();
    got.sort();
    let mut want = expected(QueryMode::GPU, "--query-gpu=memory.used,", "temp");
    want.push("--format".to_string());
    want.sort();
    assert_eq!(got, want, "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn zsh_script_parses() {
    if !have("zsh") {
        return;
    }
    let file = script_file(clap_complete::Shell::Zsh, "");
    let out = crate::common::command("zsh")
        .arg("-n")
        .arg(file.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A hidden option (`serve --answer`, what an `ssh://` node runs) is never
/// offered: not in bash for real, and in no shell's script.
#[test]
fn hidden_options_are_never_completed() {
    let hidden = generate::hidden_longs(&generate::command()).unwrap();
    assert!(hidden.contains(&"answer".to_string()), "{hidden:?}");
    if have_bash() {
        let got = complete("nvq serve --");
        assert!(got.contains(&"--web.listen-address".to_string()), "{got:?}");
        assert!(got.contains(&"--hosts".to_string()), "{got:?}");
        assert!(!got.iter().any(|w| w.starts_with("--answer")), "{got:?}");
        assert_eq!(complete("nvq serve --answ"), Vec::<String>::new());
    }
    for shell in [
        clap_complete::Shell::Bash,
        clap_complete::Shell::Zsh,
        clap_complete::Shell::Fish,
        clap_complete::Shell::PowerShell,
    ] {
        let script = generate::completion(shell).unwrap();
        for h in &hidden {
            for offer in [
                format!(" --{h} "),
                format!(" --{h}\""),
                format!("'--{h}="),
                format!("'--{h}["),
                format!("-l {h} "),
                format!("('--{h}'"),
                format!("--{h})"),
            ] {
                assert!(!script.contains(&offer), "{shell}: {offer:?} in the script");
            }
        }
    }
}
