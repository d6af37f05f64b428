//! nvq's own face (issue #30), through the real binary and the simulator:
//! options before a sub-command, waiting for a free GPU, `--summary` apart
//! from the data, nvq's own messages and suggestions, and output that says
//! it is simulated. Under the name `nvidia-smi` the same mistakes get
//! nvidia-smi's text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{nvq, scenario, sim_lib};
use std::process::{Command, Output};

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Four GPUs with processes.
fn four() -> std::path::PathBuf {
    scenario("mon_4gpu.toml")
}

/// The GPU indices at the start of dmon/pmon's data lines.
fn gpus_of(text: &str) -> Vec<String> {
    let mut g: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    g.dedup();
    g
}

/// nvq run through a symlink named `nvidia-smi`.
fn nvidia_smi(scenario: &std::path::Path, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("nvidia-smi");
    std::os::unix::fs::symlink(common::nvq_bin(), &link).unwrap();
    common::command(&link)
        .args(args)
        .env("NVQ_NVML_LIB", sim_lib())
        .env("NVML_SIM_SCENARIO", scenario)
        .output()
        .unwrap()
}

// 1. Options before a sub-command.

#[test]
fn id_before_a_monitor_selects_its_gpus() {
    let o = nvq(&four(), &["-i", "0,1", "dmon", "-s", "m", "-c", "1"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(gpus_of(&out(&o)), ["0", "1"]);
    let o = nvq(&four(), &["-i", "3", "pmon", "-c", "1"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(gpus_of(&out(&o)), ["3"]);
}

#[test]
fn loop_count_and_format_before_dmon_apply_to_it() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let o = nvq(&four(), &["--count", "2", "-i", "0", "dmon", "-s", "u"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let data: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(data.len(), 2, "{text}");
    let o = nvq(&four(), &["--format=json", "dmon", "-c", "1", "-i", "1"]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    // -lms after dmon, as the queries spell it.
    let o = nvq(&four(), &["dmon", "-lms", "100", "-c", "2", "-i", "0"]);
    assert!(o.status.success(), "{}", err(&o));
    let o = nvq(&four(), &["-l", "1", "dmon", "-d", "2", "-c", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("given both before and after dmon"),
        "{}",
        err(&o)
    );
}

#[test]
fn an_option_that_means_nothing_to_the_sub_command_is_refused_by_name() {
    let o = nvq(&scenario("topo_h100.toml"), &["-l", "1", "topo", "-m"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("-l/--loop (or -lms) does not apply to topo"),
        "{}",
        err(&o)
    );
    assert!(out(&o).is_empty());
    // topo -i means what it means after topo: it needs -n or -p.
    let o = nvq(&scenario("topo_h100.toml"), &["-i", "0", "topo", "-m"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("-n or -p"), "{}", err(&o));
    let o = nvq(&four(), &["--query-gpu=index", "dmon"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("does not combine with dmon"),
        "{}",
        err(&o)
    );
}

#[test]
fn as_nvidia_smi_an_option_before_a_sub_command_makes_it_a_stray_word() {
    let o = nvidia_smi(&four(), &["-i", "0", "dmon", "-c", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        out(&o),
        "ERROR: Option dmon is not recognized. Please run 'nvidia-smi -h' for help.\n"
    );
}

// 2. Waiting for a free GPU.

#[test]
fn until_all_over_no_processes_holds_so_waiting_for_a_free_gpu_works() {
    let free = scenario("wait_free.toml");
    // GPU 1 runs a job for three samples, then it exits: the wait ends.
    let o = nvq(
        &free,
        &[
            "--query-compute-apps=pid,used_memory",
            "--format=csv,noheader",
            "-i",
            "1",
            "-lms",
            "20",
            "--until-all",
            "used_memory < 1GiB",
            "--timeout",
            "5s",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        !lines.is_empty() && lines.iter().all(|l| l.starts_with("5150, ")),
        "{lines:?}"
    );
    // GPU 0 is free already: one sample, nothing to list, exit 0.
    let o = nvq(
        &free,
        &[
            "--query-compute-apps=pid",
            "--format=csv,noheader",
            "-i",
            "0",
            "--until-all",
            "pid > 0",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "");
    // --until needs a row that holds: over no rows it never does.
    let o = nvq(
        &free,
        &[
            "--query-compute-apps=pid",
            "--format=csv",
            "-i",
            "0",
            "-lms",
            "20",
            "--until",
            "pid > 0",
            "--timeout",
            "200ms",
        ],
    );
    assert_eq!(o.status.code(), Some(21), "{}", err(&o));
}

// 3. --summary apart from the data.

#[test]
fn summary_goes_to_stderr_and_keys_are_not_averaged() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("log.csv");
    let o = nvq(
        &four(),
        &[
            "--query-gpu=index,temperature.gpu",
            "--format=csv",
            "-lms",
            "20",
            "--count",
            "3",
            "--summary",
            "-f",
            file.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let data = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = data.lines().collect();
    assert_eq!(lines[0], "index, temperature.gpu");
    assert_eq!(lines.len(), 1 + 3 * 4, "{data}");
    assert!(!data.contains("mean"));
    let summary = err(&o);
    assert!(
        summary.contains("gpu, statistic, index, temperature.gpu"),
        "{summary}"
    );
    assert!(summary.contains("\n2, mean, 2, "), "{summary}");
    // pmon's PIDs are keys too.
    let o = nvq(
        &four(),
        &["pmon", "-c", "2", "-i", "0", "--summary", "--format=csv"],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(!out(&o).contains("mean"));
    let mean = err(&o)
        .lines()
        .find(|l| l.contains(", mean, "))
        .unwrap()
        .to_string();
    let cells: Vec<&str> = mean.split(", ").collect();
    assert!(!cells[3].contains('.'), "pid averaged: {mean}");
}

#[test]
fn dmon_takes_the_scripting_flags() {
    let o = nvq(
        &four(),
        &["dmon", "-s", "u", "-c", "1", "--where", "index == 2"],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(gpus_of(&out(&o)), ["2"]);
}

// 8. nvq's own messages.

#[test]
fn usage_errors_are_nvqs_words_with_exit_2() {
    let o = nvq(&four(), &["-i"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).starts_with("nvq: option --id needs a value"),
        "{}",
        err(&o)
    );
    let o = nvq(&four(), &["-i", "0", "-i", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("cannot be used multiple times"),
        "{}",
        err(&o)
    );
    let o = nvq(&four(), &["--format=json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("--format needs something to format"),
        "{}",
        err(&o)
    );
    for o in [
        nvq(&four(), &["-i", "0", "-i", "1"]),
        nvq(&four(), &["--format=json"]),
        nvq(&four(), &["dmon", "--where", "nosuch > 1", "-c", "1"]),
        nvq(&four(), &["--bogus"]),
    ] {
        assert!(!err(&o).contains("nvidia-smi -h"), "{}", err(&o));
    }
    // As nvidia-smi: nvidia-smi's text and exit code.
    let o = nvidia_smi(&four(), &["-i"]);
    assert_eq!(o.status.code(), Some(255));
    assert!(out(&o).contains("Please run 'nvidia-smi -h' for help."));
}

#[test]
fn a_library_that_does_not_load_gets_nvqs_advice() {
    let o = common::nvq_command()
        .args(["--nvml-lib", "/etc/passwd", "-L"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(12));
    let e = err(&o);
    assert!(e.contains("/etc/passwd"), "{e}");
    assert!(
        e.contains("LD_LIBRARY_PATH") && e.contains("--simulate"),
        "{e}"
    );
    assert!(!e.contains("system PATH"), "{e}");
}

// 9. Did you mean.

#[test]
fn misspelt_fields_formats_and_options_get_suggestions() {
    let o = nvq(&four(), &["--query-gpu=index,memory.usd", "--format=csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("did you mean \"memory.used\"?"),
        "{}",
        err(&o)
    );
    let o = nvq(&four(), &["--query-gpu=Memory.Used", "--format=csv"]);
    assert!(err(&o).contains("\"memory.used\""), "{}", err(&o));
    let o = nvq(
        &four(),
        &["--query-compute-apps=pid,used_mem", "--format=csv"],
    );
    assert!(err(&o).contains("\"used_memory\""), "{}", err(&o));
    let o = nvq(&four(), &["--query-gpu=index", "--format=cvs"]);
    assert!(err(&o).contains("did you mean \"csv\"?"), "{}", err(&o));
    let o = nvq(&four(), &["--query-gpu=index", "--formt=csv"]);
    assert!(
        err(&o).contains("did you mean \"--format\"?"),
        "{}",
        err(&o)
    );
    // As nvidia-smi, stdout is nvidia-smi's text; the hint is on stderr.
    let o = nvidia_smi(&four(), &["--query-gpu=memory.usd", "--format=csv"]);
    assert_eq!(
        out(&o),
        "Field \"memory.usd\" is not a valid field to query.\n\n"
    );
    assert!(err(&o).contains("memory.used"));
}

// 10. Simulated output says so.

#[test]
fn version_under_the_simulator_says_so() {
    let o = nvq(&four(), &["--version"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("simulator"), "{}", out(&o));
    assert!(out(&o).contains("mon_4gpu.toml"), "{}", out(&o));
    let o = nvq(&scenario("topo_h100.toml"), &["topo"]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("needs one of its options") && err(&o).contains("--matrix"));
    assert!(out(&o).is_empty());
}

// 4. Short everyday commands, and a query without --format.

#[test]
fn a_query_without_format_prints_csv_into_a_pipe_and_nvq_format_sets_it() {
    let o = nvq(&four(), &["--query-gpu=index,memory.used"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        out(&o).starts_with("index, memory.used [MiB]\n0, "),
        "{}",
        out(&o)
    );
    let o = common::nvq_command()
        .args(["--nvml-lib"])
        .arg(sim_lib())
        .args(["--query-gpu=index"])
        .env("NVML_SIM_SCENARIO", four())
        .env("NVQ_FORMAT", "json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 4);
    // As nvidia-smi, --format stays mandatory.
    let o = nvidia_smi(&four(), &["--query-gpu=index"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn mem_ps_and_busy_are_short_queries() {
    let o = nvq(&four(), &["mem", "-i", "0"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "index, name, memory.total [MiB], memory.used [MiB], memory.free [MiB], memory.used.percent [%], \
         memory.derived"
    );
    assert_eq!(
        lines.next().unwrap(),
        "0, NVIDIA H100 80GB HBM3, 81559 MiB, 1000 MiB, 80029 MiB, 1.23 %, No"
    );
    let o = nvq(&four(), &["ps", "--format=csv,noheader"]);
    assert!(o.status.success(), "{}", err(&o));
    let gpus: Vec<String> = out(&o)
        .lines()
        .map(|l| l.split(", ").next().unwrap().to_string())
        .collect();
    assert!(
        gpus.contains(&"0".to_string()) && gpus.contains(&"2".to_string()),
        "{}",
        out(&o)
    );
    let o = nvq(
        &four(),
        &[
            "busy",
            "--where",
            "compute_apps.count > 0",
            "--format=csv,noheader",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let busy: Vec<String> = out(&o)
        .lines()
        .map(|l| l.split(", ").next().unwrap().to_string())
        .collect();
    assert_eq!(busy, ["0", "2"]);
    // They are nvq's words, not nvidia-smi's.
    let o = nvidia_smi(&four(), &["mem"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn wait_runs_the_command_once_the_gpu_is_free_and_passes_its_status() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let free = scenario("wait_free.toml");
    let o = nvq(
        &free,
        &["wait", "-i", "1", "-lms", "20", "--", "sh", "-c", "exit 7"],
    );
    assert_eq!(o.status.code(), Some(7), "{}", err(&o));
    assert_eq!(out(&o), "");
    // A GPU that never gets free: exit 21, the command is not run.
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("ran");
    let o = nvq(
        &four(),
        &[
            "wait",
            "-i",
            "0",
            "-lms",
            "20",
            "--timeout",
            "200ms",
            "--",
            "touch",
            mark.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(21), "{}", err(&o));
    assert!(!mark.exists());
}

// 5. Fields people reach for.

#[test]
fn gpu_index_process_count_and_memory_percent() {
    let o = nvq(
        &four(),
        &[
            "--query-compute-apps=gpu_index,pid",
            "--format=csv,noheader",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).lines().any(|l| l.starts_with("2, ")), "{}", out(&o));
    let o = nvq(
        &four(),
        &[
            "--query-gpu=index,compute_apps.count,memory.used.percent",
            "--format=csv,noheader,nounits",
            "-i",
            "0",
        ],
    );
    assert_eq!(out(&o), "0, 2, 1.23\n");
    let o = nvq(
        &four(),
        &[
            "--query-gpu=index",
            "--format=csv",
            "--where",
            "memory.used < 90%",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("memory.used.percent < 90"), "{}", err(&o));
    // Under the name nvidia-smi, nvq's fields are unknown, as nvidia-smi has them.
    let o = nvidia_smi(&four(), &["--query-compute-apps=gpu_index", "--format=csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        out(&o),
        "Field \"gpu_index\" is not a valid field to query.\n\n"
    );
}

// 6. One vocabulary.

#[test]
fn half_a_second_suggests_lms() {
    let o = nvq(&four(), &["--query-gpu=index", "-l", "0.5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("-lms 500"), "{}", err(&o));
}

// 7. Timestamps for plotting.

#[test]
fn an_epoch_timestamp_field_and_ndjson_carries_one() {
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let o = nvq(
        &four(),
        &[
            "--query-gpu=timestamp.epoch,index",
            "--format=csv,noheader",
            "-i",
            "0",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let (epoch, index) = text.trim_end().split_once(", ").unwrap();
    let epoch: f64 = epoch.parse().unwrap();
    assert!((epoch - before).abs() < 60.0, "{epoch} vs {before}");
    assert_eq!(index, "0");
    let o = nvq(
        &four(),
        &[
            "--query-gpu=index,memory.used",
            "--format=ndjson",
            "-i",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(out(&o).trim_end()).unwrap();
    let t = v["timestamp.epoch"].as_f64().unwrap();
    assert!((t - before).abs() < 60.0, "{v}");
    // In a loop, a GPU's rows carry increasing times.
    let o = nvq(
        &four(),
        &[
            "--query-gpu=timestamp.epoch",
            "--format=csv,noheader",
            "-i",
            "0",
            "-lms",
            "50",
            "--count",
            "3",
        ],
    );
    let times: Vec<f64> = out(&o).lines().map(|l| l.parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[1] > w[0]), "{times:?}");
    // Under the name nvidia-smi it is no field.
    let o = nvidia_smi(&four(), &["--query-gpu=timestamp.epoch", "--format=csv"]);
    assert_eq!(o.status.code(), Some(2));
}

// 12. The man page.

#[test]
fn the_man_page_has_examples_expressions_and_the_environment() {
    let page = std::fs::read_to_string(common::repo_root().join("man/nvq.1")).unwrap();
    for section in [".SH EXAMPLES", ".SH EXPRESSIONS", ".SH ENVIRONMENT"] {
        assert!(page.contains(section), "{section}");
    }
    for var in [
        "NVQ_FORMAT",
        "NO_COLOR",
        "NVQ_HOST_PROC",
        "NVML_SIM_SCENARIO",
        "NVQ_NVML_LIB",
    ] {
        assert!(page.contains(var), "{var}");
    }
    assert!(
        page.contains("nvq wait \\-i 1 \\-\\- python train.py") || page.contains("nvq wait -i 1"),
        "wait example"
    );
    let help = out(&nvq(&four(), &["--help"]));
    assert!(help.contains("NVML_SIM_SCENARIO"), "{help}");
}

/// Every example of the man page (the everyday jobs) runs as written
/// against the simulator: loops get a --count, the job is `true`.
#[test]
fn every_man_page_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    for (what, line) in nvq_dev::EXAMPLES {
        let mut words = shell_words(line);
        assert_eq!(words.first().map(String::as_str), Some("nvq"), "{line}");
        words.remove(0);
        if let Some(k) = words.iter().position(|w| w == "--") {
            words.truncate(k + 1);
            words.push("true".into());
        }
        if words.iter().any(|w| w == "-l") && !words.iter().any(|w| w == "--count") {
            words.splice(0..0, ["--count".to_string(), "2".to_string()]);
        }
        let o = common::nvq_command()
            .current_dir(dir.path())
            .env("NVQ_NVML_LIB", sim_lib())
            .env("NVML_SIM_SCENARIO", four())
            .args(&words)
            .output()
            .unwrap();
        assert!(o.status.success(), "{what} {line}: {}", err(&o));
    }
}

/// Words as a shell splits these examples: blanks, and single quotes.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut in_word) = (false, false);
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// A misspelt scenario key names the nearest keys, not all ninety.
#[test]
fn a_scenario_typo_suggests_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let sc = dir.path().join("typo.toml");
    std::fs::write(
        &sc,
        "driver_version = \"580.82.07\"\n[[device]]\nname = \"x\"\nmemroy = { total = 1 }\n",
    )
    .unwrap();
    let o = nvq(&sc, &["-L"]);
    assert_eq!(o.status.code(), Some(255));
    let e = err(&o);
    assert!(
        e.contains("unknown field `memroy`; did you mean `memory`?"),
        "{e}"
    );
    assert!(!e.contains("expected one of"), "{e}");
}

/// The README's and the guide's simulated examples need no checkout: the
/// built-in machine has a topology, and `NVML_SIM_SCENARIO` takes the name
/// of a built-in example machine, so they work from the installed package
/// (run from an empty directory here, as `scripts/deb-check.sh` does).
#[test]
fn simulated_examples_work_without_a_checkout() {
    let dir = tempfile::tempdir().unwrap();
    let run = |scenario: Option<&str>, args: &[&str]| {
        let mut c = common::nvq_command();
        c.current_dir(dir.path())
            .arg("--nvml-lib")
            .arg(sim_lib())
            .args(args);
        match scenario {
            Some(s) => c.env("NVML_SIM_SCENARIO", s),
            None => c.env_remove("NVML_SIM_SCENARIO"),
        };
        c.output().unwrap()
    };
    let o = run(None, &["topo", "-m"]);
    assert!(o.status.success(), "{}", err(&o));
    let gpu0 = out(&o)
        .lines()
        .find(|l| l.starts_with("GPU0"))
        .unwrap_or_default()
        .to_string();
    assert!(
        gpu0.contains("NODE") && gpu0.contains("0-31"),
        "built-in topo -m: {}",
        out(&o)
    );
    for (name, args, want) in [
        ("pcie_8gpu_2numa", &["topo", "-m"][..], "PIX"),
        ("dgx_h100_8gpu", &["topo", "-m"][..], "NV18"),
        ("dgx_h100_8gpu", &["nvlink", "-s", "-i", "0"][..], "Link 0"),
    ] {
        let o = run(Some(name), args);
        assert!(o.status.success(), "{name} {args:?}: {}", err(&o));
        assert!(out(&o).contains(want), "{name} {args:?}: {}", out(&o));
    }
    // A name that is neither a file nor a built-in machine lists the names.
    let o = run(Some("pcie_8gpu"), &["topo", "-m"]);
    assert!(!o.status.success());
    assert!(err(&o).contains("pcie_8gpu_2numa"), "{}", err(&o));
}

/// `nvq stat`: gpustat's view, one line per GPU with its processes; a
/// process that runs here (this test, by its PID) shows its user.
#[test]
fn stat_prints_one_line_per_gpu_with_its_processes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stat.toml");
    let me = std::process::id();
    let gpu = |bus: u32, used: u64, procs: &str| {
        format!(
            "[[device]]\nname = \"NVIDIA A100-SXM4-40GB\"\nuuid = \"GPU-0000000{bus}-0000-0000-0000-000000000000\"\n\
             pci = {{ domain = 0, bus = {bus}, device = 0 }}\n\
             memory = {{ total = 42949672960, used = {used} }}\n\
             temperature = {{ gpu = 61 }}\nutilization = {{ gpu = 93, memory = 40 }}\n{procs}"
        )
    };
    let text = gpu(
        1,
        3 << 30,
        &format!(
            "[[device.process]]\npid = {me}\nname = \"train\"\nused_memory = 2147483648\n\
         [[device.process]]\npid = 4000000\nname = \"gone\"\nused_memory = 1073741824\n"
        ),
    ) + &gpu(2, 0, "");
    std::fs::write(&file, text).unwrap();
    let o = nvq(&file, &["stat"]);
    assert!(o.status.success(), "{}", err(&o));
    let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout).unwrap();
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            format!("[0] NVIDIA A100-SXM4-40GB |  61°C,  93 % |  3072 / 40960 MiB | {}:train/{me}(2048M) \
                     ?:gone/4000000(1024M)", user.trim()),
            "[1] NVIDIA A100-SXM4-40GB |  61°C,  93 % |     0 / 40960 MiB |".to_string(),
        ],
        "{text}"
    );
    let o = nvq(&file, &["stat", "-i", "1"]);
    assert_eq!(out(&o).lines().count(), 1, "{}", out(&o));
    assert!(out(&o).starts_with("[1] "), "{}", out(&o));
    // A loop or a format is no option of stat: refused by name.
    let o = nvq(&file, &["stat", "-l", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    // nvq's word, not nvidia-smi's.
    let o = nvidia_smi(&file, &["stat"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out(&o).contains("[0]"), "{}", out(&o));
}
