//! Bad input: every invocation here is wrong in some way, and each must end
//! in one clear message on the right stream with a documented exit code
//! (docs/errors.md), never a panic and never half an output.
//!
//! The cases are one table ([`CASES`]); adding a case is adding one line.
//! Argument spellings understood by [`expand`]:
//! - `<FF>` is the byte 0xFF (an argument that is not UTF-8);
//! - `<N*tok>` is `tok` repeated N times, joined by commas;
//! - `<N*tok>+rest` is the same followed by `,rest`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::sim_lib;

use assert_cmd::Command;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// Where the message is expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Out,
    Err,
}

/// What the message must look like.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// The whole stream, byte for byte.
    Exact(&'static str),
    /// The stream starts with this text.
    Prefix(&'static str),
    /// The stream starts with the first text and contains the second.
    PrefixAnd(&'static str, &'static str),
    /// Success output: the first line has this many `, `-separated columns
    /// and every line as many; the default scenario has two GPUs.
    Columns(usize),
}

/// Scenario for the simulator.
#[derive(Debug, Clone, Copy)]
enum Scn {
    /// The built-in default (two H100s).
    Default,
    /// This TOML text, written to a temporary file.
    Toml(&'static str),
    /// This path, as is.
    Path(&'static str),
}

struct Case {
    args: &'static [&'static str],
    scenario: Scn,
    code: i32,
    stream: Stream,
    expect: Expect,
}

const fn case(args: &'static [&'static str], code: i32, stream: Stream, expect: Expect) -> Case {
    Case {
        args,
        scenario: Scn::Default,
        code,
        stream,
        expect,
    }
}

const fn scn(args: &'static [&'static str], scenario: Scn, code: i32, expect: Expect) -> Case {
    Case {
        args,
        scenario,
        code,
        stream: Stream::Err,
        expect,
    }
}

use Expect::{Columns, Exact, Prefix, PrefixAnd};
use Stream::{Err, Out};

const Q: &str = "--query-gpu=index";
const CSV: &str = "--format=csv";

const FIELD_BOGUS: &str = "Field \"bogus\" is not a valid field to query.\n";
const FIELD_EMPTY: &str = "Field \"\" is not a valid field to query.\n";
const COMBO: &str =
    "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n";
const NO_DEV: &str = "No devices were found\n";
const BAD_FMT: &str = "ERROR: Invalid format option ";
const L_BAD: &str = "ERROR: -l/--loop needs a whole number of seconds greater than 0, not ";
const LMS_BAD: &str =
    "ERROR: -lms/--loop-ms needs a whole number of milliseconds greater than 0, not ";
const COUNT_BAD: &str = "ERROR: --count needs a whole number of samples greater than 0, not ";
const INIT_UNKNOWN: &str = "Failed to initialize NVML: Unknown Error\n";
const SIM_SCN: &str = "nvml-sim: cannot load scenario: ";

/// Every bad (or merely odd) invocation, with what it must print.
#[rustfmt::skip]
static CASES: &[Case] = &[
    // ---- field lists -------------------------------------------------
    case(&["--query-gpu=bogus", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-gpu=index,bogus,name", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-gpu=bogus,alsobad", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-gpu=", CSV], 2, Err, Prefix(FIELD_EMPTY)),
    case(&["--query-gpu=index,", CSV], 2, Err, Prefix(FIELD_EMPTY)),
    case(&["--query-gpu=,index", CSV], 2, Err, Prefix(FIELD_EMPTY)),
    case(&["--query-gpu=index,,name", CSV], 2, Err, Prefix(FIELD_EMPTY)),
    case(&["--query-gpu=index, name", CSV], 2, Err, Prefix("Field \" name\" is not a valid field to query.\n")),
    case(&["--query-gpu= index", CSV], 2, Err, Prefix("Field \" index\" is not a valid field to query.\n")),
    case(&["--query-gpu=INDEX", CSV], 2, Err, Prefix("Field \"INDEX\" is not a valid field to query.\n")),
    case(&["--query-gpu=temp\u{e9}rature.gpu", CSV], 2, Err, Prefix("Field \"temp\u{e9}rature.gpu\" is not a valid field to query.\n")),
    case(&["--query-gpu=index\tname", CSV], 2, Err, Prefix("Field \"index\tname\" is not a valid field to query.\n")),
    case(&["--query-gpu=index,index", CSV], 0, Out, Exact("index, index\n0, 0\n1, 1\n")),
    case(&["--query-gpu=name,index,name", "--format=csv,noheader"], 0, Out, Columns(3)),
    case(&["--query-gpu=<10000*index>", CSV], 0, Out, Columns(10_000)),
    case(&["--query-gpu=<10000*index>+bogus", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-gpu=<10000*bogus>", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-gpu=<10000*>", CSV], 2, Err, Prefix(FIELD_EMPTY)),
    case(&["--query-gpu=<FF>", CSV], 2, Err, Exact("ERROR: argument \"--query-gpu=\u{FFFD}\" is not valid UTF-8; only file paths may contain such bytes.\n")),
    case(&["--query-gpu"], 255, Err, Prefix("ERROR: Option --query-gpu is missing its value. Please run 'nvidia-smi -h' for help.\n")),
    // ---- --format ---------------------------------------------------
    case(&[Q, "--format=csv,bogus"], 2, Err, PrefixAnd(BAD_FMT, "\"bogus\"")),
    case(&[Q, "--format=xml"], 2, Err, PrefixAnd(BAD_FMT, "\"xml\"")),
    case(&[Q, "--format=CSV"], 2, Err, PrefixAnd(BAD_FMT, "\"CSV\"")),
    case(&[Q, "--format=csv, noheader"], 2, Err, PrefixAnd(BAD_FMT, "\" noheader\"")),
    case(&[Q, "--format=csv,"], 2, Err, PrefixAnd(BAD_FMT, "\"\"")),
    case(&[Q, "--format="], 2, Err, Prefix("ERROR: ")),
    case(&[Q, "--format=noheader"], 2, Err, Prefix("ERROR: --format=\"noheader\" does not name an output format")),
    case(&[Q, "--format=noheader,nounits"], 2, Err, Prefix("ERROR: --format=\"noheader,nounits\" does not name an output format")),
    case(&[Q, "--format", "csv", "noheader"], 2, Err, Prefix("ERROR: Option noheader is not recognized. Please run 'nvidia-smi -h' for help.\n")),
    // Without --format nvq prints CSV into a pipe (issue #30).
    case(&[Q], 0, Out, Columns(1)),
    case(&[CSV], 2, Err, Exact(COMBO)),
    case(&["--format=csv,noheader", "-i", "0"], 2, Err, Exact(COMBO)),
    case(&[Q, "--query-compute-apps=pid", CSV], 2, Err, Exact(COMBO)),
    case(&[Q, "--query-retired-pages=timestamp", "--query-remapped-rows=gpu_uuid", CSV], 2, Err, Exact(COMBO)),
    case(&[Q, "--format"], 255, Err, Prefix("ERROR: Option --format is missing its value. Please run 'nvidia-smi -h' for help.\n")),
    case(&[Q, "--format=csv,json"], 2, Err, Prefix("ERROR: --format names more than one output format (\"csv,json\")")),
    case(&[Q, "--format=json,noheader"], 2, Err, Prefix("ERROR: --format=json,noheader: \"noheader\" applies to csv and table output only")),
    // ---- other query modes, -L, --version ------------------------------
    case(&["--query-compute-apps=bogus", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-compute-apps=pid,", CSV], 2, Err, Prefix(FIELD_EMPTY)),
    case(&["--query-compute-apps=pid,pid", CSV], 0, Out, Columns(2)),
    case(&["--query-accounted-apps=bogus", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-retired-pages=", CSV], 2, Err, Prefix(FIELD_EMPTY)),
    case(&["--query-remapped-rows=bogus", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-supported-clocks=<10000*bogus>", CSV], 2, Err, Prefix(FIELD_BOGUS)),
    case(&["--query-supported-clocks=memory,graphics,memory", CSV], 0, Out, Columns(3)),
    case(&["--query-compute-apps=pid"], 0, Out, Columns(1)),
    case(&["-L", "--version"], 2, Err, Exact(COMBO)),
    case(&["-L", Q, CSV], 2, Err, Exact(COMBO)),
    case(&["--version", CSV], 2, Err, Exact(COMBO)),
    case(&["-L", "-i", "7"], 6, Err, Exact(NO_DEV)),
    case(&["-L", "-i", "GPU-4c3a"], 6, Err, Exact(NO_DEV)),
    // ---- -i ---------------------------------------------------------
    case(&[Q, CSV, "-i", "7"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "2"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "0,7"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "0,"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", ""], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "0x"], 6, Err, Exact(NO_DEV)),
    // A board serial is all digits too: one that is not an index is a serial.
    case(&[Q, "--format=csv,noheader", "-i", "1650123456790"], 0, Out, Exact("1\n")),
    case(&[Q, "--format=csv,noheader", "-i", "1650123456790,0"], 0, Out, Exact("0\n1\n")),
    case(&[Q, CSV, "-i", "1650123456791"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "1;rm"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "99999999999999999999"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "GPU-4c3a"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "GPU-"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "zz:00.0"], 6, Err, Exact(NO_DEV)),
    case(&[Q, CSV, "-i", "<FF>"], 2, Err, Prefix("ERROR: argument \"\u{FFFD}\" is not valid UTF-8;")),
    case(&[Q, CSV, "-i", "0<FF>"], 2, Err, Prefix("ERROR: argument \"0\u{FFFD}\" is not valid UTF-8;")),
    case(&[Q, CSV, "-i"], 255, Err, Prefix("ERROR: Option --id is missing its value. Please run 'nvidia-smi -h' for help.\n")),
    // ---- -l / -lms / --count -----------------------------------------
    case(&[Q, CSV, "-l", "0"], 2, Err, Exact("ERROR: -l/--loop needs a whole number of seconds greater than 0, not \"0\".\n")),
    case(&[Q, CSV, "--loop=-1"], 2, Err, PrefixAnd(L_BAD, "\"-1\"")),
    case(&[Q, CSV, "-l", "-1"], 2, Err, Prefix("ERROR: -l/--loop needs a whole number of seconds greater than 0, not \"-1\"")),
    case(&[Q, CSV, "-l", "abc"], 2, Err, PrefixAnd(L_BAD, "\"abc\"")),
    case(&[Q, CSV, "-l", "1.5"], 2, Err, PrefixAnd("ERROR: -l/--loop needs a whole number of seconds, not \"1.5\"", "-lms 1500")),
    case(&[Q, CSV, "-l", "99999999999999999999"], 2, Err, PrefixAnd(L_BAD, "\"99999999999999999999\"")),
    case(&[Q, CSV, "-l", "86401"], 2, Err, Prefix("ERROR: -l/--loop 86401 is longer than the maximum of one day.\n")),
    case(&[Q, CSV, "-l", "18446744073709551615"], 2, Err, Prefix("ERROR: -l/--loop 18446744073709551615 is longer than the maximum of one day.\n")),
    case(&[Q, CSV, "-lms", "0"], 2, Err, PrefixAnd(LMS_BAD, "\"0\"")),
    case(&[Q, CSV, "-lms=-5"], 2, Err, PrefixAnd(LMS_BAD, "\"-5\"")),
    case(&[Q, CSV, "-lms", "-5"], 2, Err, Prefix("ERROR: -lms/--loop-ms needs a whole number of milliseconds greater than 0, not \"-5\"")),
    case(&[Q, CSV, "-lms", "fast"], 2, Err, PrefixAnd(LMS_BAD, "\"fast\"")),
    case(&[Q, CSV, "-lms", "99999999999999999999"], 2, Err, PrefixAnd(LMS_BAD, "\"99999999999999999999\"")),
    case(&[Q, CSV, "-lms", "86400001"], 2, Err, Prefix("ERROR: -lms/--loop-ms 86400001 is longer than the maximum of one day.\n")),
    case(&[Q, CSV, "-lms"], 255, Err, Prefix("ERROR: Option --loop-ms is missing its value. Please run 'nvidia-smi -h' for help.\n")),
    case(&[Q, CSV, "-l", "1", "-lms", "100"], 2, Err, Exact(COMBO)),
    case(&[Q, CSV, "--count", "3"], 2, Err, Prefix("ERROR: --count needs a loop: ")),
    case(&[Q, CSV, "-l", "1", "--count", "0"], 2, Err, PrefixAnd(COUNT_BAD, "\"0\"")),
    case(&[Q, CSV, "-l", "1", "--count", "many"], 2, Err, PrefixAnd(COUNT_BAD, "\"many\"")),
    case(&[Q, CSV, "-l", "1", "--count", "99999999999999999999"], 2, Err, PrefixAnd(COUNT_BAD, "\"99999999999999999999\"")),
    // ---- -f ---------------------------------------------------------
    case(&[Q, CSV, "-f", "/tmp"], 22, Err, Prefix("ERROR: could not write to /tmp: ")),
    case(&[Q, CSV, "-f", "/"], 22, Err, Prefix("ERROR: could not write to /: ")),
    case(&[Q, CSV, "-f", "/proc/version"], 22, Err, Prefix("ERROR: could not write to /proc/version: ")),
    case(&[Q, CSV, "-f", "/sys/nvq-cannot-create-this"], 22, Err, Prefix("ERROR: could not write to /sys/nvq-cannot-create-this: ")),
    case(&[Q, CSV, "-f", "/nonexistent-nvq-dir/out.csv"], 22, Err, Prefix("ERROR: could not write to /nonexistent-nvq-dir/out.csv: ")),
    case(&[Q, CSV, "-f", "/dev/full"], 22, Err, PrefixAnd("ERROR: could not write to /dev/full: ", "No space left on device")),
    case(&[Q, CSV, "-f"], 255, Err, Prefix("ERROR: Option --filename is missing its value. Please run 'nvidia-smi -h' for help.\n")),
    // ---- options ----------------------------------------------------
    case(&["--bogus"], 2, Err, Exact("ERROR: Option --bogus is not recognized. Please run 'nvidia-smi -h' for help.\n")),
    case(&[Q, CSV, "stray"], 2, Err, Prefix("ERROR: Option stray is not recognized. Please run 'nvidia-smi -h' for help.\n")),
    case(&["--<FF>"], 2, Err, Prefix("ERROR: Option --\u{FFFD} is not recognized.")),
    case(&["<FF>"], 2, Err, Prefix("ERROR: Option \u{FFFD} is not recognized.")),
    case(&[Q, "--format=csv<FF>"], 2, Err, Prefix("ERROR: argument \"--format=csv\u{FFFD}\" is not valid UTF-8;")),
    case(&["drain"], 2, Err, Prefix("ERROR: Option drain is an nvidia-smi option that nvq does not implement.")),
    case(&["vgpu", "-v"], 2, Err, Prefix("ERROR: Option -v is an nvidia-smi option that nvq does not implement.")),
    case(&["-B"], 2, Err, Prefix("ERROR: Option -B is an nvidia-smi option that nvq does not implement.")),
    // -u (the unit report) needs -q.
    case(&["-u"], 2, Err, Exact("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n")),
    case(&[Q, CSV, "--nvml-lib"], 255, Err, Prefix("ERROR: Option --nvml-lib is missing its value.")),
    // Odd spellings: the message names what was typed.
    case(&[Q, CSV, "-lms100"], 2, Err, Exact("ERROR: \"-lms100\" runs the value into the option; write \"-lms 100\" or \"-lms=100\".\n")),
    case(&[Q, CSV, "--until", "index>5", "--timeout", "1ns"], 2, Err, PrefixAnd("ERROR: --timeout \"1ns\": \"ns\" is not a unit", "ms, s, m or h")),
    case(&[Q, CSV, "--until", "index>5", "--timeout", "0s"], 2, Err, Prefix("ERROR: --timeout needs a duration greater than 0, not \"0s\".")),
    case(&[Q, CSV, "--until", "index>5", "--timeout", "999999h"], 2, Err, Prefix("ERROR: --timeout \"999999h\" is longer than the maximum of 30 days.")),
    // ---- scenario files (the simulator) --------------------------------
    scn(&[Q, CSV], Scn::Path("/nonexistent-nvq-dir/scenario.toml"), 255, PrefixAnd(SIM_SCN, INIT_UNKNOWN)),
    scn(&[Q, CSV], Scn::Path("/tmp"), 255, PrefixAnd(SIM_SCN, INIT_UNKNOWN)),
    scn(&[Q, CSV], Scn::Path("/proc/self/mem"), 255, PrefixAnd(SIM_SCN, INIT_UNKNOWN)),
    scn(&[Q, CSV], Scn::Path("/dev/zero"), 255, PrefixAnd("nvml-sim: cannot load scenario: /dev/zero: larger than 16 MiB", INIT_UNKNOWN)),
    scn(&[Q, CSV], Scn::Toml("driver_version = \n"), 255, PrefixAnd(SIM_SCN, INIT_UNKNOWN)),
    scn(&[Q, CSV], Scn::Toml("[[device]]\nname = \"x\"\ntemperature = { gpu = \"hot\" }\n"), 255, PrefixAnd(SIM_SCN, "line 3")),
    scn(&[Q, CSV], Scn::Toml("[[device]]\nnmae = \"typo\"\n"), 255, PrefixAnd(SIM_SCN, INIT_UNKNOWN)),
    scn(&[Q, CSV], Scn::Toml("init_fault = \"NO_SUCH_CODE\"\n"), 255, PrefixAnd(SIM_SCN, INIT_UNKNOWN)),
    scn(&[Q, CSV], Scn::Toml("\u{0}\u{1}\u{2}garbage[[[\n"), 255, PrefixAnd(SIM_SCN, INIT_UNKNOWN)),
    scn(&[Q, CSV], Scn::Toml(""), 6, Exact(NO_DEV)),
];

/// Turn a table spelling into the real argument.
fn expand(arg: &str) -> OsString {
    if let Some(start) = arg.find("<FF>") {
        let mut bytes = arg.as_bytes()[..start].to_vec();
        bytes.push(0xFF);
        bytes.extend_from_slice(expand(&arg[start + 4..]).as_bytes());
        return OsString::from_vec(bytes);
    }
    if let (Some(open), Some(close)) = (arg.find('<'), arg.find('>')) {
        if let Some((n, tok)) = arg[open + 1..close].split_once('*') {
            if let Ok(n) = n.parse::<usize>() {
                let mut s = arg[..open].to_string();
                s.push_str(&vec![tok; n].join(","));
                if let Some(rest) = arg[close + 1..].strip_prefix('+') {
                    s.push(',');
                    s.push_str(rest);
                }
                return OsString::from(s);
            }
        }
    }
    OsString::from(arg)
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(program: &Path, case: &Case) -> Run {
    let mut cmd = Command::from_std(common::command(program));
    cmd.arg("--nvml-lib")
        .arg(sim_lib())
        .args(case.args.iter().map(|a| expand(a)));
    let _keep;
    match case.scenario {
        Scn::Default => {
            cmd.env_remove("NVML_SIM_SCENARIO");
        }
        Scn::Path(p) => {
            cmd.env("NVML_SIM_SCENARIO", p);
        }
        Scn::Toml(text) => {
            let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
            std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
            cmd.env("NVML_SIM_SCENARIO", f.path());
            _keep = f;
        }
    }
    let out = cmd
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn describe(case: &Case) -> String {
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| {
            let s = a.to_string();
            if s.len() > 60 {
                format!("{}...", &s[..60])
            } else {
                s
            }
        })
        .collect();
    format!("{args:?} ({:?})", case.scenario)
}

/// Check one case's result; returns the failures.
fn check(case: &Case, r: &Run, stream: Stream) -> Vec<String> {
    let mut bad = Vec::new();
    let what = describe(case);
    if r.code != Some(case.code) {
        bad.push(format!(
            "{what}: exit {:?}, want {}\n  stdout: {:?}\n  stderr: {:?}",
            r.code,
            case.code,
            clip(&r.stdout),
            clip(&r.stderr)
        ));
    }
    for (name, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
        if text.contains("panicked") || text.contains("this is a bug") {
            bad.push(format!("{what}: {name} shows a panic: {}", clip(text)));
        }
    }
    let (main, other) = match stream {
        Stream::Out => (&r.stdout, &r.stderr),
        Stream::Err => (&r.stderr, &r.stdout),
    };
    let ok = match case.expect {
        Expect::Exact(t) => main == t,
        Expect::Prefix(p) => main.starts_with(p),
        Expect::PrefixAnd(p, c) => main.starts_with(p) && main.contains(c),
        Expect::Columns(n) => {
            let lines: Vec<&str> = main.lines().collect();
            !lines.is_empty()
                && main.ends_with('\n')
                && lines.iter().all(|l| l.split(", ").count() == n)
        }
    };
    if !ok {
        bad.push(format!(
            "{what}: {:?} wanted {:?}, got {:?}",
            stream,
            case.expect,
            clip(main)
        ));
    }
    // An error leaves nothing half-written on the other stream; a success
    // prints nothing on stderr. As nvidia-smi, a "did you mean" may follow
    // on stderr, apart from nvidia-smi's text.
    let hint_only =
        stream == Stream::Out && other.lines().all(|l| l.starts_with("nvq: did you mean"));
    if !other.is_empty() && !hint_only {
        bad.push(format!(
            "{what}: the other stream is not empty: {:?}",
            clip(other)
        ));
    }
    if case.code != 0 && !main.ends_with('\n') {
        bad.push(format!("{what}: the message does not end in a newline"));
    }
    bad
}

fn clip(s: &str) -> String {
    if s.len() > 300 {
        let mut end = 300;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &s[..end])
    } else {
        s.to_string()
    }
}

fn nvq_path() -> PathBuf {
    common::nvq_bin()
}

#[test]
fn the_table_is_big_enough() {
    assert!(CASES.len() >= 40, "{} cases", CASES.len());
}

/// Is the expected message nvidia-smi's own text? Under its own name nvq
/// says the same in its words (issue #30); the table's text is then checked
/// through an `nvidia-smi` symlink.
fn nvidia_smi_text(e: &Expect) -> bool {
    let t = match e {
        Expect::Exact(t) | Expect::Prefix(t) | Expect::PrefixAnd(t, _) => t,
        Expect::Columns(_) => return false,
    };
    [
        "nvidia-smi -h",
        "is not a valid field to query",
        "is not recognized",
        "is missing its value",
    ]
    .iter()
    .any(|s| t.contains(s))
}

/// nvq's own words for a case whose table text is nvidia-smi's: the same
/// exit code (2 for a missing value, where nvidia-smi exits 255), one
/// `nvq: ` message on stderr that does not send the user to nvidia-smi.
fn check_nvq_words(case: &Case, r: &Run) -> Vec<String> {
    let what = describe(case);
    let code = if case.code == 255 { 2 } else { case.code };
    let mut bad = Vec::new();
    if r.code != Some(code) || !r.stdout.is_empty() {
        bad.push(format!(
            "{what}: exit {:?}, want {code}; stdout {:?}",
            r.code,
            clip(&r.stdout)
        ));
    }
    let start = r.stderr.starts_with("nvq: ") || r.stderr.starts_with("Field \"");
    if !start || r.stderr.contains("nvidia-smi -h") || !r.stderr.ends_with('\n') {
        bad.push(format!(
            "{what}: not nvq's own words: {:?}",
            clip(&r.stderr)
        ));
    }
    bad
}

#[test]
fn every_bad_input_gets_its_message_stream_and_exit_code() {
    let nvq = nvq_path();
    let (_dir, link) = common::nvidia_smi_link();
    let mut failures = Vec::new();
    for case in CASES {
        if case.code != 0 && nvidia_smi_text(&case.expect) {
            failures.extend(check(case, &run(&link, case), Stream::Out));
            failures.extend(check_nvq_words(case, &run(&nvq, case)));
            continue;
        }
        let r = run(&nvq, case);
        failures.extend(check(case, &r, case.stream));
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// Invoked through a symlink named `nvidia-smi`, nvq prints its errors on
/// stdout, as nvidia-smi does; the exit codes stay the same.
#[test]
fn through_an_nvidia_smi_symlink_errors_go_to_stdout() {
    let (_dir, link) = common::nvidia_smi_link();
    let picks: Vec<&Case> = CASES
        .iter()
        .filter(|c| c.code != 0 && matches!(c.scenario, Scn::Default))
        .step_by(5)
        .collect();
    assert!(picks.len() >= 8);
    let mut failures = Vec::new();
    for case in picks {
        let r = run(&link, case);
        failures.extend(check(case, &r, Stream::Out));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The expansion helper itself (so the table means what it says).
#[test]
fn expand_understands_its_spellings() {
    assert_eq!(expand("a<FF>b").as_bytes(), b"a\xFFb");
    assert_eq!(expand("--q=<3*x>"), OsStr::new("--q=x,x,x"));
    assert_eq!(expand("--q=<2*x>+y"), OsStr::new("--q=x,x,y"));
    assert_eq!(expand("plain"), OsStr::new("plain"));
}

/// A file name may be any bytes: `-f` with a name that is not UTF-8 works.
#[test]
fn a_file_name_that_is_not_utf8_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    let mut name = dir.path().as_os_str().as_bytes().to_vec();
    name.extend_from_slice(b"/out\xFF.csv");
    let path = PathBuf::from(OsString::from_vec(name));
    let out = common::command(nvq_path())
        .arg("--nvml-lib")
        .arg(sim_lib())
        .args(["--query-gpu=index", "--format=csv,noheader", "-f"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "0\n1\n");
}

/// A 120 KB unknown field name (issue 54, item 12) is refused at once, and
/// the message quotes a bounded part of it, not the whole name thrice.
#[test]
fn a_huge_unknown_field_name_is_refused_at_once_and_quoted_short() {
    let name = "x".repeat(120 * 1024);
    let query = format!("--query-gpu={name}");
    let where_ = format!("{name} > 1");
    let cases: [Vec<&str>; 2] = [
        vec![query.as_str(), "--format=csv"],
        vec![
            "--query-gpu=index",
            "--format=csv",
            "--where",
            where_.as_str(),
        ],
    ];
    for args in cases {
        let t0 = std::time::Instant::now();
        let o = common::sim_command(None, &args).output().unwrap();
        let took = t0.elapsed();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}", &err[..err.len().min(300)]);
        // Today's code took about 20 s; a busy machine gets ample margin.
        assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
        assert!(err.len() < 2048, "a message of {} bytes", err.len());
        assert!(err.contains("xxxxxxxx"), "{err}");
    }
}
