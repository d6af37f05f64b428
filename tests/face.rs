//! nvq's own face (issue #30), through the real binary and the simulator:
//! options before a sub-command, waiting for a free GPU, `--summary` apart
//! from the data, nvq's own messages and suggestions, and output that says
//! it is simulated. Under the name `nvidia-smi` the same mistakes get
//! nvidia-smi's text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{as_nvidia_smi, bare, run, scenario, sim_lib};
use std::process::Command;

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

// 1. Options before a sub-command.

#[test]
fn id_before_a_monitor_selects_its_gpus() {
    let o = run(&four(), &["-i", "0,1", "dmon", "-s", "m", "-c", "1"]);
    assert!(o.success(), "{}", o.stderr);
    assert_eq!(gpus_of(&o.stdout), ["0", "1"]);
    let o = run(&four(), &["-i", "3", "pmon", "-c", "1"]);
    assert!(o.success(), "{}", o.stderr);
    assert_eq!(gpus_of(&o.stdout), ["3"]);
}

#[test]
fn loop_count_and_format_before_dmon_apply_to_it() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let o = run(&four(), &["--count", "2", "-i", "0", "dmon", "-s", "u"]);
    assert!(o.success(), "{}", o.stderr);
    let text = o.stdout;
    let data: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(data.len(), 2, "{text}");
    let o = run(&four(), &["--format=json", "dmon", "-c", "1", "-i", "1"]);
    assert!(o.success(), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    // -lms after dmon, as the queries spell it.
    let o = run(&four(), &["dmon", "-lms", "100", "-c", "2", "-i", "0"]);
    assert!(o.success(), "{}", o.stderr);
    let o = run(&four(), &["-l", "1", "dmon", "-d", "2", "-c", "1"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("given both before and after dmon"),
        "{}",
        o.stderr
    );
}

#[test]
fn an_option_that_means_nothing_to_the_sub_command_is_refused_by_name() {
    let o = run(&scenario("topo_h100.toml"), &["-l", "1", "topo", "-m"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .contains("-l/--loop (or -lms) does not apply to topo"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.is_empty());
    // topo -i means what it means after topo: it needs -n or -p.
    let o = run(&scenario("topo_h100.toml"), &["-i", "0", "topo", "-m"]);
    assert_eq!(o.code, Some(2));
    assert!(o.stderr.contains("-n or -p"), "{}", o.stderr);
    let o = run(&four(), &["--query-gpu=index", "dmon"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("does not combine with dmon"),
        "{}",
        o.stderr
    );
}

#[test]
fn as_nvidia_smi_an_option_before_a_sub_command_makes_it_a_stray_word() {
    let o = as_nvidia_smi(&four(), &["-i", "0", "dmon", "-c", "1"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stdout,
        "ERROR: Option dmon is not recognized. Please run 'nvidia-smi -h' for help.\n"
    );
}

// 2. Waiting for a free GPU.

#[test]
fn until_all_over_no_processes_holds_so_waiting_for_a_free_gpu_works() {
    let free = scenario("wait_free.toml");
    // GPU 1 runs a job for three samples, then it exits: the wait ends.
    let o = run(
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
    assert!(o.success(), "{}", o.stderr);
    let text = o.stdout;
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        !lines.is_empty() && lines.iter().all(|l| l.starts_with("5150, ")),
        "{lines:?}"
    );
    // GPU 0 is free already: one sample, nothing to list, exit 0.
    let o = run(
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
    assert!(o.success(), "{}", o.stderr);
    assert_eq!(o.stdout, "");
    // --until needs a row that holds: over no rows it never does.
    let o = run(
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
    assert_eq!(o.code, Some(21), "{}", o.stderr);
}

// 3. --summary apart from the data.

#[test]
fn summary_goes_to_stderr_and_keys_are_not_averaged() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("log.csv");
    let o = run(
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
    assert!(o.success(), "{}", o.stderr);
    let data = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = data.lines().collect();
    assert_eq!(lines[0], "index, temperature.gpu");
    assert_eq!(lines.len(), 1 + 3 * 4, "{data}");
    assert!(!data.contains("mean"));
    let summary = o.stderr;
    assert!(
        summary.contains("gpu, statistic, index, temperature.gpu"),
        "{summary}"
    );
    assert!(summary.contains("\n2, mean, 2, "), "{summary}");
    // pmon's PIDs are keys too.
    let o = run(
        &four(),
        &["pmon", "-c", "2", "-i", "0", "--summary", "--format=csv"],
    );
    assert!(o.success(), "{}", o.stderr);
    assert!(!o.stdout.contains("mean"));
    let mean = o
        .stderr
        .lines()
        .find(|l| l.contains(", mean, "))
        .unwrap()
        .to_string();
    let cells: Vec<&str> = mean.split(", ").collect();
    assert!(!cells[3].contains('.'), "pid averaged: {mean}");
}

#[test]
fn dmon_takes_the_scripting_flags() {
    let o = run(
        &four(),
        &["dmon", "-s", "u", "-c", "1", "--where", "index == 2"],
    );
    assert!(o.success(), "{}", o.stderr);
    assert_eq!(gpus_of(&o.stdout), ["2"]);
}

// 8. nvq's own messages.

#[test]
fn usage_errors_are_nvqs_words_with_exit_2() {
    let o = run(&four(), &["-i"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.starts_with("nvq: option --id needs a value"),
        "{}",
        o.stderr
    );
    let o = run(&four(), &["-i", "0", "-i", "1"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("cannot be used multiple times"),
        "{}",
        o.stderr
    );
    let o = run(&four(), &["--format=json"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("--format needs something to format"),
        "{}",
        o.stderr
    );
    for o in [
        run(&four(), &["-i", "0", "-i", "1"]),
        run(&four(), &["--format=json"]),
        run(&four(), &["dmon", "--where", "nosuch > 1", "-c", "1"]),
        run(&four(), &["--bogus"]),
    ] {
        assert!(!o.stderr.contains("nvidia-smi -h"), "{}", o.stderr);
    }
    // As nvidia-smi: nvidia-smi's text and exit code.
    let o = as_nvidia_smi(&four(), &["-i"]);
    assert_eq!(o.code, Some(255));
    assert!(o.stdout.contains("Please run 'nvidia-smi -h' for help."));
}

#[test]
fn a_library_that_does_not_load_gets_nvqs_advice() {
    let o = bare(&["--nvml-lib", "/etc/passwd", "-L"]);
    assert_eq!(o.code, Some(12));
    let e = o.stderr;
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
    let o = run(&four(), &["--query-gpu=index,memory.usd", "--format=csv"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("did you mean \"memory.used\"?"),
        "{}",
        o.stderr
    );
    let o = run(&four(), &["--query-gpu=Memory.Used", "--format=csv"]);
    assert!(o.stderr.contains("\"memory.used\""), "{}", o.stderr);
    let o = run(
        &four(),
        &["--query-compute-apps=pid,used_mem", "--format=csv"],
    );
    assert!(o.stderr.contains("\"used_memory\""), "{}", o.stderr);
    let o = run(&four(), &["--query-gpu=index", "--format=cvs"]);
    assert!(o.stderr.contains("did you mean \"csv\"?"), "{}", o.stderr);
    let o = run(&four(), &["--query-gpu=index", "--formt=csv"]);
    assert!(
        o.stderr.contains("did you mean \"--format\"?"),
        "{}",
        o.stderr
    );
    // As nvidia-smi, stdout is nvidia-smi's text; the hint is on stderr.
    let o = as_nvidia_smi(&four(), &["--query-gpu=memory.usd", "--format=csv"]);
    assert_eq!(
        o.stdout,
        "Field \"memory.usd\" is not a valid field to query.\n\n"
    );
    assert!(o.stderr.contains("memory.used"));
}

// 10. Simulated output says so.

#[test]
fn version_under_the_simulator_says_so() {
    let o = run(&four(), &["--version"]);
    assert!(o.success(), "{}", o.stderr);
    assert!(o.stdout.contains("simulator"), "{}", o.stdout);
    assert!(o.stdout.contains("mon_4gpu.toml"), "{}", o.stdout);
    let o = run(&scenario("topo_h100.toml"), &["topo"]);
    assert_eq!(o.code, Some(2), "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("needs one of its options") && o.stderr.contains("--matrix"));
    assert!(o.stdout.is_empty());
}

// 4. Short everyday commands, and a query without --format.

#[test]
fn a_query_without_format_prints_csv_into_a_pipe_and_nvq_format_sets_it() {
    let o = run(&four(), &["--query-gpu=index,memory.used"]);
    assert!(o.success(), "{}", o.stderr);
    assert!(
        o.stdout.starts_with("index, memory.used [MiB]\n0, "),
        "{}",
        o.stdout
    );
    let mut c = common::sim_command(Some(&four()), &["--query-gpu=index"]);
    c.env("NVQ_FORMAT", "json");
    let o = common::ran(c);
    assert!(o.success(), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 4);
    // As nvidia-smi, --format stays mandatory.
    let o = as_nvidia_smi(&four(), &["--query-gpu=index"]);
    assert_eq!(o.code, Some(2));
}

#[test]
fn mem_ps_and_busy_are_short_queries() {
    let o = run(&four(), &["mem", "-i", "0"]);
    assert!(o.success(), "{}", o.stderr);
    let text = o.stdout;
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
    let o = run(&four(), &["ps", "--format=csv,noheader"]);
    assert!(o.success(), "{}", o.stderr);
    let gpus: Vec<String> = o
        .stdout
        .lines()
        .map(|l| l.split(", ").next().unwrap().to_string())
        .collect();
    assert!(
        gpus.contains(&"0".to_string()) && gpus.contains(&"2".to_string()),
        "{}",
        o.stdout
    );
    let o = run(
        &four(),
        &[
            "busy",
            "--where",
            "compute_apps.count > 0",
            "--format=csv,noheader",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let busy: Vec<String> = o
        .stdout
        .lines()
        .map(|l| l.split(", ").next().unwrap().to_string())
        .collect();
    assert_eq!(busy, ["0", "2"]);
    // They are nvq's words, not nvidia-smi's.
    let o = as_nvidia_smi(&four(), &["mem"]);
    assert_eq!(o.code, Some(2));
}

#[test]
fn wait_runs_the_command_once_the_gpu_is_free_and_passes_its_status() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let free = scenario("wait_free.toml");
    let o = run(
        &free,
        &["wait", "-i", "1", "-lms", "20", "--", "sh", "-c", "exit 7"],
    );
    assert_eq!(o.code, Some(7), "{}", o.stderr);
    assert_eq!(o.stdout, "");
    // A GPU that never gets free: exit 21, the command is not run.
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("ran");
    let o = run(
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
    assert_eq!(o.code, Some(21), "{}", o.stderr);
    assert!(!mark.exists());
}

// 5. Fields people reach for.

#[test]
fn gpu_index_process_count_and_memory_percent() {
    let o = run(
        &four(),
        &[
            "--query-compute-apps=gpu_index,pid",
            "--format=csv,noheader",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    assert!(
        o.stdout.lines().any(|l| l.starts_with("2, ")),
        "{}",
        o.stdout
    );
    let o = run(
        &four(),
        &[
            "--query-gpu=index,compute_apps.count,memory.used.percent",
            "--format=csv,noheader,nounits",
            "-i",
            "0",
        ],
    );
    assert_eq!(o.stdout, "0, 2, 1.23\n");
    let o = run(
        &four(),
        &[
            "--query-gpu=index",
            "--format=csv",
            "--where",
            "memory.used < 90%",
        ],
    );
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("memory.used.percent < 90"),
        "{}",
        o.stderr
    );
    // Under the name nvidia-smi, nvq's fields are unknown, as nvidia-smi has them.
    let o = as_nvidia_smi(&four(), &["--query-compute-apps=gpu_index", "--format=csv"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stdout,
        "Field \"gpu_index\" is not a valid field to query.\n\n"
    );
}

// 6. One vocabulary.

#[test]
fn half_a_second_suggests_lms() {
    let o = run(&four(), &["--query-gpu=index", "-l", "0.5"]);
    assert_eq!(o.code, Some(2));
    assert!(o.stderr.contains("-lms 500"), "{}", o.stderr);
}

// 7. Timestamps for plotting.

#[test]
fn an_epoch_timestamp_field_and_ndjson_carries_one() {
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let o = run(
        &four(),
        &[
            "--query-gpu=timestamp.epoch,index",
            "--format=csv,noheader",
            "-i",
            "0",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let text = o.stdout;
    let (epoch, index) = text.trim_end().split_once(", ").unwrap();
    let epoch: f64 = epoch.parse().unwrap();
    assert!((epoch - before).abs() < 60.0, "{epoch} vs {before}");
    assert_eq!(index, "0");
    let o = run(
        &four(),
        &[
            "--query-gpu=index,memory.used",
            "--format=ndjson",
            "-i",
            "1",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(o.stdout.trim_end()).unwrap();
    let t = v["timestamp.epoch"].as_f64().unwrap();
    assert!((t - before).abs() < 60.0, "{v}");
    // In a loop, a GPU's rows carry increasing times.
    let o = run(
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
    let times: Vec<f64> = o.stdout.lines().map(|l| l.parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[1] > w[0]), "{times:?}");
    // Under the name nvidia-smi it is no field.
    let o = as_nvidia_smi(&four(), &["--query-gpu=timestamp.epoch", "--format=csv"]);
    assert_eq!(o.code, Some(2));
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
    let help = run(&four(), &["--help"]).stdout;
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
        let mut c = common::nvq_command();
        c.current_dir(dir.path())
            .env("NVQ_NVML_LIB", sim_lib())
            .env("NVML_SIM_SCENARIO", four())
            .args(&words);
        let o = common::ran(c);
        assert!(o.success(), "{what} {line}: {}", o.stderr);
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
    let o = run(&sc, &["-L"]);
    assert_eq!(o.code, Some(255));
    let e = o.stderr;
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
        common::ran(c)
    };
    let o = run(None, &["topo", "-m"]);
    assert!(o.success(), "{}", o.stderr);
    let gpu0 = o
        .stdout
        .lines()
        .find(|l| l.starts_with("GPU0"))
        .unwrap_or_default()
        .to_string();
    assert!(
        gpu0.contains("NODE") && gpu0.contains("0-31"),
        "built-in topo -m: {}",
        o.stdout
    );
    for (name, args, want) in [
        ("pcie_8gpu_2numa", &["topo", "-m"][..], "PIX"),
        ("dgx_h100_8gpu", &["topo", "-m"][..], "NV18"),
        ("dgx_h100_8gpu", &["nvlink", "-s", "-i", "0"][..], "Link 0"),
    ] {
        let o = run(Some(name), args);
        assert!(o.success(), "{name} {args:?}: {}", o.stderr);
        assert!(o.stdout.contains(want), "{name} {args:?}: {}", o.stdout);
    }
    // A name that is neither a file nor a built-in machine lists the names.
    let o = run(Some("pcie_8gpu"), &["topo", "-m"]);
    assert!(!o.success());
    assert!(o.stderr.contains("pcie_8gpu_2numa"), "{}", o.stderr);
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
    let o = run(&file, &["stat"]);
    assert!(o.success(), "{}", o.stderr);
    let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout).unwrap();
    let text = o.stdout;
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
    let o = run(&file, &["stat", "-i", "1"]);
    assert_eq!(o.stdout.lines().count(), 1, "{}", o.stdout);
    assert!(o.stdout.starts_with("[1] "), "{}", o.stdout);
    // A loop or a format is no option of stat: refused by name.
    let o = run(&file, &["stat", "-l", "1"]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    // nvq's word, not nvidia-smi's.
    let o = as_nvidia_smi(&file, &["stat"]);
    assert_eq!(o.code, Some(2));
    assert!(!o.stdout.contains("[0]"), "{}", o.stdout);
}
