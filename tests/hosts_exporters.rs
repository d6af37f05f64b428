//! `--hosts` nodes that run dcgm-exporter or nvidia_gpu_exporter: an entry
//! ending in `/metrics` is scraped and read through the `dcgm` and
//! `nvidia_gpu_exporter` profiles' name tables. The expositions come from
//! nvq's own `serve --profile dcgm` and `--profile nvidia_gpu_exporter` on
//! a simulated node, and from the real nvidia_gpu_exporter scrapes in
//! `../shared/exporters` (served as they are, compared with the nvidia-smi
//! captures they were made from). A value is the node's own or `N/A`,
//! never another.

use crate::common::{self, bare};
use crate::hosts::{fake_node, http_ok, local, Node};
use nvq_core::source::QueryMode;
use std::time::Duration;

/// The cells of a CSV line.
fn cells(line: &str) -> Vec<String> {
    line.split(", ").map(str::to_string).collect()
}

const Q: &str = "index,name,uuid,pci.bus_id,driver_version,memory.used,memory.total,memory.free,\
                 utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,clocks.sm,\
                 clocks.mem,pstate,compute_apps.count";

/// Each profile's node read through `/metrics` against the same node's own
/// answer: every cell the node's or `N/A`, and `N/A` exactly where the
/// exporter has no family for the fact.
#[test]
fn an_exporters_facts_read_as_the_node_itself_and_the_rest_n_a() {
    let fields: Vec<&str> = Q.split(',').collect();
    for (profile, lacks) in [
        (
            "dcgm",
            &[
                "memory.total",
                "power.limit",
                "pstate",
                "compute_apps.count",
            ][..],
        ),
        ("nvidia_gpu_exporter", &["pstate"][..]),
    ] {
        let node = Node::start(2, &[&format!("--profile={profile}")]);
        let url = format!("http://{}/metrics", node.addr);
        let q = format!("--query-gpu={Q}");
        let out = bare(&["--hosts", &url, &q, "--format=csv,noheader"]);
        assert!(out.success(), "{profile}: {}", out.stderr.clone());
        let got = out.stdout.clone();
        let want = local(&node, &[&q, "--format=csv,noheader"]);
        assert_eq!(got.lines().count(), 2, "{profile}: {got}");
        for (g, w) in got.lines().zip(want.lines()) {
            let (g, w) = (cells(g), cells(w));
            assert_eq!(g[0], url, "{profile}: the host column");
            for (k, field) in fields.iter().enumerate() {
                let (g, w) = (&g[k + 1], &w[k]);
                // A value the node has not ([N/A], [Not Supported]) is
                // in no exposition.
                if lacks.contains(field) || w.starts_with('[') {
                    assert_eq!(g, "N/A", "{profile}: {field} (node: {w})");
                } else {
                    assert_eq!(g, w, "{profile}: {field}");
                }
            }
        }
    }
}

/// `ps`, `mem`, `stat` and `top` on both kinds of node: processes with
/// their name and memory from nvidia_gpu_exporter (user and command line
/// `N/A`), none from dcgm-exporter, which is said (exit 23 for `ps`; a
/// note for `stat`, whose GPU lines still print).
#[test]
fn ps_mem_stat_and_top_read_exporter_nodes() {
    let nge = Node::start(2, &["--profile=nvidia_gpu_exporter"]);
    let dcgm = Node::start(1, &["--profile=dcgm"]);
    let (a, b) = (
        format!("http://{}/metrics", nge.addr),
        format!("http://{}/metrics", dcgm.addr),
    );
    let apps = "--query-compute-apps=gpu_index,gpu_name,gpu_uuid,gpu_bus_id,pid,process_name,used_gpu_memory";
    let out = bare(&["--hosts", &a, apps, "--format=csv,noheader"]);
    assert!(out.success(), "{}", out.stderr.clone());
    let want = local(&nge, &[apps, "--format=csv,noheader"]);
    assert_eq!(out.stdout.clone(), format!("{a}, {want}"));
    let out = bare(&["ps", "--hosts", &a, "--format=csv,noheader"]);
    assert_eq!(
        out.stdout.clone(),
        format!("{a}, 0, 4242, N/A, 1024 MiB, N/A\n"),
        "{}",
        out.stderr.clone()
    );
    let out = bare(&[
        "ps",
        "--hosts",
        &format!("{a},{b}"),
        "--format=csv,noheader",
    ]);
    assert_eq!(out.code, Some(23));
    assert_eq!(out.stdout.clone().lines().count(), 1);
    assert!(
        out.stderr
            .clone()
            .contains(&format!("nvq: {b}: its dcgm-exporter lists no processes")),
        "{}",
        out.stderr.clone()
    );
    // mem: memory.used.percent is nvq's own, in neither exporter.
    let out = bare(&[
        "mem",
        "--hosts",
        &format!("{a},{b}"),
        "--format=csv,noheader",
    ]);
    assert!(out.success(), "{}", out.stderr.clone());
    let mem = out.stdout.clone();
    assert!(
        mem.contains(&format!(
            "{a}, 1, NVIDIA H100 80GB HBM3, 81559 MiB, 2048 MiB, "
        )),
        "{mem}"
    );
    assert!(
        mem.contains(&format!("{b}, 0, NVIDIA H100 80GB HBM3, N/A, 1024 MiB, ")),
        "{mem}"
    );
    for line in mem.lines() {
        assert!(line.ends_with(", N/A"), "{line}");
    }
    // stat: both nodes' GPU lines, the dcgm node's without processes.
    let out = bare(&["stat", "--hosts", &format!("{a},{b}")]);
    assert!(out.success(), "{}", out.stderr.clone());
    let stat = out.stdout.clone();
    assert_eq!(stat.lines().count(), 3, "{stat}");
    assert!(stat.contains("/4242(1024M)"), "{stat}");
    assert!(
        out.stderr
            .clone()
            .contains("its dcgm-exporter lists no processes (its GPUs are shown without them)"),
        "{}",
        out.stderr.clone()
    );
    // top: both nodes reachable, the process under its node, the dcgm
    // node's GPU with unknown (`-`) what dcgm-exporter does not give.
    let out = bare(&["top", "--once", "--hosts", &format!("{a},{b}")]);
    let frame = out.stdout.clone();
    assert!(out.success(), "{frame}{}", out.stderr.clone());
    assert_eq!(frame.matches("reachable").count(), 2, "{frame}");
    assert!(frame.contains("3 GPUs on 2/2 hosts"), "{frame}");
    assert!(frame.contains("4242"), "{frame}");
    // The dcgm node's header says why it shows no processes.
    assert!(
        frame
            .lines()
            .any(|l| l.starts_with(&b) && l.contains("reachable, 1 GPU  (dcgm-exporter lists no")),
        "{frame}"
    );
}

/// The machine directory and load state of a real scrape's file name
/// (`linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.metrics`).
fn machine_and_state(file: &str) -> Option<(String, String)> {
    let stem = file.strip_suffix(".metrics")?;
    let (machine, state) = stem.rsplit_once("__")?;
    Some((machine.to_string(), state.to_string()))
}

/// The real nvidia_gpu_exporter scrapes, served as they are: every field
/// nvq reads from them prints as nvidia-smi printed it in the capture the
/// scrape was made from (or `N/A`), the processes too.
#[test]
fn real_nvidia_gpu_exporter_scrapes_read_as_nvidia_smi_printed_them() {
    let Some(dir) = common::shared_path("exporters/nvidia_gpu_exporter") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".metrics"))
        .collect();
    files.sort();
    let (mut compared, mut read) = (0, 0);
    for file in &files {
        let (machine, state) = machine_and_state(file).unwrap();
        let sections = format!("nvidia-smi/captures/sections/{machine}");
        let Some(csv) = common::read_shared(&format!(
            "{sections}/{state}_query_gpu_csv_what_the_exporter_parses.txt"
        )) else {
            continue;
        };
        let body = std::fs::read_to_string(dir.join(file)).unwrap();
        let url = format!(
            "http://{}/metrics",
            fake_node(http_ok(&body), Duration::ZERO)
        );
        let mut lines = csv.lines();
        let header: Vec<&str> = lines
            .next()
            .unwrap()
            .split(", ")
            .map(|h| h.split(" [").next().unwrap_or(h))
            .collect();
        // The fields nvq knows, but the time (the capture's is its own).
        let known: Vec<usize> = (0..header.len())
            .filter(|&i| header[i] != "timestamp" && QueryMode::GPU.lookup(header[i]).is_some())
            .collect();
        let names: Vec<&str> = known.iter().map(|&i| header[i]).collect();
        let out = bare(&[
            "--hosts",
            &url,
            &format!("--query-gpu={}", names.join(",")),
            "--format=csv,noheader",
        ]);
        assert!(out.success(), "{file}: {}", out.stderr.clone());
        let got = out.stdout.clone();
        let want: Vec<Vec<String>> = lines.map(cells).collect();
        assert_eq!(got.lines().count(), want.len(), "{file}: {got}");
        for (g, w) in got.lines().zip(&want) {
            let g = cells(g);
            for (k, &i) in known.iter().enumerate() {
                let (g, w) = (&g[k + 1], &w[i]);
                if g != "N/A" {
                    assert_eq!(g, w, "{file}: {} read wrong", header[i]);
                    read += 1;
                }
                compared += 1;
            }
        }
        // The processes, as --query-compute-apps printed them.
        let Some(apps) = common::read_shared(&format!(
            "{sections}/{state}_query_compute_apps_per_process.txt"
        )) else {
            continue;
        };
        let fields = "gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory";
        let out = bare(&[
            "--hosts",
            &url,
            &format!("--query-compute-apps={fields}"),
            "--format=csv,noheader",
        ]);
        assert!(out.success(), "{file}: {}", out.stderr.clone());
        let mut got: Vec<Vec<String>> = out
            .stdout
            .clone()
            .lines()
            .map(|l| cells(l)[1..].to_vec())
            .collect();
        let mut want: Vec<Vec<String>> = apps
            .lines()
            .skip(1)
            .map(|l| cells(l)[1..].to_vec())
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got.len(), want.len(), "{file}: {got:?}");
        for (g, w) in got.iter().zip(&want) {
            for (gc, wc) in g.iter().zip(w) {
                assert!(gc == wc || gc == "N/A", "{file}: {g:?} for {w:?}");
            }
            // The GPU, the PID and the name are always there.
            for k in [0, 1, 3, 4, 5] {
                assert_eq!(g[k], w[k], "{file}");
            }
        }
    }
    common::assert_compared("real scrapes' cells", compared, 8 * 60);
    // A good part is read, not everything N/A (358 of 1800 cells of the
    // 8 scrapes: the fields with a unit and the temperatures).
    assert!(
        shared_absent_or(read * 6 > compared),
        "read {read} of {compared}"
    );
}

fn shared_absent_or(ok: bool) -> bool {
    common::shared_absent() || ok
}

/// What a hostile node sends stays in its bounds: escapes and control
/// characters in a name print as one printable line, a huge or broken
/// number is `N/A`, broken lines are skipped, and something that is no
/// exporter's exposition names the node (exit 23).
#[test]
fn hostile_expositions_give_printable_rows_or_a_named_failure() {
    let body = "\
# TYPE nvidia_smi_gpu_info gauge
nvidia_smi_gpu_info{uuid=\"u1\",index=\"0\",name=\"GPU\\\"\u{1b}]0;PWNED\u{7}\\n\",pci_bus_id=\"b\"} 1
nvidia_smi_memory_used_bytes{uuid=\"u1\"} 1e300
nvidia_smi_memory_total_bytes{uuid=\"u1\"} NaN
nvidia_smi_memory_free_bytes{uuid=\"u1\"} 1048576
nvidia_smi_temperature_gpu{uuid=\"u1\" 40
nvidia_smi_utilization_gpu_ratio{uuid=\"u1\"} 0.5
nvidia_smi_compute_app_info{pid=\"7\",process_name=\"evil\\\"a,b=c}\u{9b}31m\",uuid=\"u1\"} 1
nvidia_smi_compute_app_used_memory_bytes{pid=\"7\",process_name=\"evil\\\"a,b=c}\u{9b}31m\",uuid=\"u1\"} -5
";
    let url = format!(
        "http://{}/metrics",
        fake_node(http_ok(body), Duration::ZERO)
    );
    let out = bare(&[
        "--hosts",
        &url,
        "--query-gpu=index,name,memory.used,memory.total,memory.free,temperature.gpu,utilization.gpu",
        "--format=csv,noheader",
    ]);
    assert!(out.success(), "{}", out.stderr.clone());
    let line = out.stdout.clone();
    assert_eq!(line.lines().count(), 1, "{line:?}");
    assert!(!line.trim_end().chars().any(char::is_control), "{line:?}");
    let c = cells(line.trim_end());
    assert_eq!(c[1..3], ["0".to_string(), "GPU\"?]0;PWNED??".to_string()]);
    assert_eq!(c[3..], ["N/A", "N/A", "1 MiB", "N/A", "50 %"]);
    let out = bare(&[
        "--hosts",
        &url,
        "--query-compute-apps=pid,process_name,used_gpu_memory",
        "--format=csv,noheader",
    ]);
    let line = out.stdout.clone();
    assert!(!line.trim_end().chars().any(char::is_control), "{line:?}");
    assert!(
        line.ends_with(", N/A\n") && line.contains(", 7, evil\"a,b=c}?31m"),
        "{line:?}"
    );
    for junk in ["<html>not metrics</html>\n", "random_metric 1\n", ""] {
        let url = format!(
            "http://{}/metrics",
            fake_node(http_ok(junk), Duration::ZERO)
        );
        let out = bare(&["mem", "--hosts", &url]);
        assert_eq!(out.code, Some(23), "{junk:?}");
        let err = out.stderr.clone();
        assert!(
            err.contains(&format!("nvq: {url}: broken answer: ")),
            "{err}"
        );
    }
}

/// docs/guide.md's table of what each view lacks on an exporter's node is
/// the one the views' fields and the profiles' name tables make.
#[test]
fn the_guides_table_of_what_exporters_lack_is_the_codes() {
    let guide = std::fs::read_to_string(common::repo_root().join("docs/guide.md")).unwrap();
    let want = nvq::app::exporters::exporter_table();
    // The table sits in a list item, indented.
    let first = want.lines().next().unwrap();
    let table: String = guide
        .lines()
        .map(str::trim_start)
        .skip_while(|l| *l != first)
        .take_while(|l| l.starts_with('|'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        table, want,
        "docs/guide.md's table differs from nvq::app::exporters::exporter_table()"
    );
}
