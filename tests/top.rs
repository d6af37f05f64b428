//! `nvq top`, the real binary in a real terminal: Debian's tmux (on a
//! private server socket), keys sent with `send-keys`, the screen read with
//! `capture-pane`. Checks what a person would see: the GPUs, a memory curve
//! that rises with the scenario's series, the leaking process marked, sort,
//! filter and interval changes, and the terminal as it was after `q`,
//! SIGTERM, SIGHUP and a panic. `--once` and bad options, which need no
//! tmux, are `top_once.rs`'s.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of this test's own, killed when dropped.
struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    /// A server name and a scratch directory; nothing runs yet.
    fn new(name: &str) -> Tmux {
        Tmux {
            socket: format!("nvq-top-{name}-{}", std::process::id()),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Start `sh -c script` in a `w`×`h` window.
    fn start(&self, w: u16, h: u16, script: &str) {
        let ok = crate::common::command("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &w.to_string(), "-y", &h.to_string()])
            .args(["sh", "-c", script])
            .env("TERM", "xterm-256color")
            .status()
            .expect("tmux must be installed (Debian: apt-get install tmux)");
        assert!(ok.success());
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = crate::common::command("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p"])
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Wait (at most 20 s) for the screen to satisfy `ok`.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            assert!(
                Instant::now() < until,
                "timed out waiting for {what}; the screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn path(&self, f: &str) -> PathBuf {
        self.dir.path().join(f)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn quoted(p: &Path) -> String {
    format!("'{}'", p.display())
}

/// The shell line that runs `nvq top ARGS` on the scenario, saving the
/// terminal's settings before and after, and printing its exit status.
fn script(t: &Tmux, scenario: &Path, args: &str) -> String {
    format!(
        "stty -g > {before}; echo $$ > {pid}; NVML_SIM_SCENARIO={sc} {nvq} top --nvml-lib {lib} {args}; \
         echo \"EXIT $?\"; stty -g > {after}; sleep 600",
        before = quoted(&t.path("before")),
        after = quoted(&t.path("after")),
        pid = quoted(&t.path("shell")),
        sc = quoted(scenario),
        nvq = quoted(&common::nvq_bin()),
        lib = quoted(&common::sim_lib()),
    )
}

/// The terminal is as it was: the same `stty` settings (raw mode is off),
/// the main screen, the cursor shown, and the shell's output visible.
fn assert_restored(t: &Tmux) {
    assert_restored_after(t, 0);
}

/// [`assert_restored`], after nvq top exited with `status`.
fn assert_restored_after(t: &Tmux, status: i32) {
    let screen = t.wait_for("the exit status", |s| s.contains("EXIT "));
    assert!(screen.contains(&format!("EXIT {status}")), "{screen}");
    assert!(
        !screen.contains("H100"),
        "the alternate screen was left:\n{screen}"
    );
    // The shell creates the file before stty has written its line: wait
    // for the whole line, not for the file.
    let read = |name: &str| std::fs::read_to_string(t.path(name)).unwrap_or_default();
    let until = Instant::now() + Duration::from_secs(10);
    while !read("after").ends_with('\n') && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let before = read("before");
    let after = read("after");
    assert!(
        before.ends_with('\n'),
        "no stty line before nvq top: {before:?}"
    );
    assert_eq!(before, after, "stty settings differ after nvq top");
    assert_eq!(
        t.tmux(&["display", "-p", "#{alternate_on} #{cursor_flag}"])
            .trim(),
        "0 1"
    );
}

/// The heights (in eighths of a row) of the compact memory curve's
/// columns: two rows under the `mem` label.
fn curve_heights(screen: &str) -> Vec<usize> {
    let lines: Vec<&str> = screen.lines().collect();
    let top = lines.iter().position(|l| l.starts_with("mem")).unwrap();
    let level = |c: char| match c {
        '▁' => 1,
        '▂' => 2,
        '▃' => 3,
        '▄' => 4,
        '▅' => 5,
        '▆' => 6,
        '▇' => 7,
        '█' => 8,
        _ => 0,
    };
    let row = |l: &str| -> Vec<usize> { l.chars().skip(5).map(level).collect() };
    let (up, low) = (row(lines[top]), row(lines[top + 1]));
    (0..low.len().max(up.len()))
        .map(|i| low.get(i).copied().unwrap_or(0) + up.get(i).copied().unwrap_or(0))
        .collect()
}

/// The first whole frame of `top_8gpu.toml` (a capture may catch a frame
/// half written: wait for all of it).
fn first_8gpu_frame(t: &Tmux) -> String {
    t.wait_for("the first frame", |s| {
        s.contains("8 GPUs")
            && (0..8).all(|i| s.contains(&format!(" {i} H100 80GB HBM3")))
            && s.contains("GI2")
            && s.contains(" PID ")
    })
}

#[test]
fn keys_curve_leak_and_quit_under_tmux() {
    let sc = common::scenario("top_8gpu.toml");
    let t = Tmux::new("keys");
    t.start(80, 24, &script(&t, &sc, "--interval 0.1 --leak-after 2"));
    let first = first_8gpu_frame(&t);
    assert!(
        first.contains("every 100ms") && first.contains("sort GPU-MEM↓"),
        "{first}"
    );
    // GPU 7 is in MIG mode: its two devices are rows under it.
    assert!(
        first.contains("└ 3g.40gb GI1 CI0") && first.contains("└ 3g.40gb GI2 CI0"),
        "{first}"
    );
    // The leaking process is marked, with its rate (0.5 GiB per 100 ms).
    let leak = t.wait_for("the leak mark", |s| {
        s.lines().any(|l| l.contains("leaky") && l.contains("▲+")) && s.contains("memory full in")
    });
    let row = leak.lines().find(|l| l.contains("leaky")).unwrap();
    // 0.5 GiB a sample at 100 ms is 5 GiB/s; a loaded machine's late samples read a little lower.
    let rate: f64 = row
        .split("▲+")
        .nth(1)
        .and_then(|r| r.split("G/s").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0);
    assert!((3.5..=5.5).contains(&rate), "rate {rate} G/s\n{leak}");
    assert!(leak.contains("memory full in"), "{leak}");
    // Zoomed to 30 s, the curve of GPU 0's memory rises to the right.
    t.keys(&["z", "z", "z", "z"]);
    let zoomed = t.wait_for("the 30 s zoom", |s| {
        let h = curve_heights(s);
        h.iter().filter(|&&v| v > 0).count() >= 8
    });
    let h: Vec<usize> = curve_heights(&zoomed)
        .into_iter()
        .filter(|&v| v > 0)
        .collect();
    assert!(
        h.windows(2).all(|w| w[0] <= w[1]),
        "not rising: {h:?}\n{zoomed}"
    );
    assert!(h.last() > h.first(), "{h:?}\n{zoomed}");
    // Sort by the next column (SM%): the leaky process (80 %) leads.
    t.keys(&["s"]);
    let first_proc = |s: &str| -> String {
        let mut rows = s.lines().skip_while(|l| !l.starts_with("GPU     PID"));
        rows.nth(1).unwrap_or("").to_string()
    };
    let sorted = t.wait_for("the sort", |s| {
        s.contains("sort SM%↓") && !first_proc(s).is_empty()
    });
    assert!(first_proc(&sorted).contains("leaky"), "{sorted}");
    // Filter by text: only python3 rows remain.
    t.keys(&["/", "p", "y", "t", "h", "Enter"]);
    let filtered = t.wait_for("the filter", |s| {
        s.contains("/pyth") && !s.contains("leaky")
    });
    assert!(filtered.contains("python3"), "{filtered}");
    // Interval up, twice: 100 ms → 200 ms → 250 ms.
    t.keys(&["+", "+"]);
    t.wait_for("the new interval", |s| s.contains("every 250ms"));
    t.keys(&["q"]);
    assert_restored(&t);
}

#[test]
fn sigterm_restores_the_terminal() {
    let sc = common::scenario("top_8gpu.toml");
    let t = Tmux::new("term");
    t.start(200, 60, &script(&t, &sc, "--interval 0.2"));
    // The wide layout: clocks, fan and PCIe on each GPU's line, every column.
    let wide = t.wait_for("the wide layout", |s| {
        s.contains("8 GPUs") && s.contains("CONTAINER")
    });
    assert!(
        wide.contains("1980MHz") && wide.contains("rx ") && wide.contains("memory "),
        "{wide}"
    );
    signal_nvq(&t, "TERM");
    assert_restored(&t);
}

/// The PID of the `nvq top` that `script` started.
fn nvq_pid(t: &Tmux) -> String {
    let shell = std::fs::read_to_string(t.path("shell")).unwrap();
    let out = Command::new("ps")
        .args(["-o", "pid=", "--ppid", shell.trim()])
        .output()
        .unwrap();
    let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(!pid.is_empty(), "nvq top's PID not found");
    pid
}

/// Send signal `sig` to the `nvq top` that `script` started.
fn signal_nvq(t: &Tmux, sig: &str) {
    let pid = nvq_pid(t);
    assert!(Command::new("kill")
        .args([&format!("-{sig}"), &pid])
        .status()
        .unwrap()
        .success());
}

#[test]
fn sighup_restores_the_terminal() {
    // The terminal's owner hangs up (an ssh session or a window that goes
    // away) while the shell that started nvq top is still there to see.
    let sc = common::scenario("top_8gpu.toml");
    let t = Tmux::new("hup");
    t.start(80, 24, &script(&t, &sc, "--interval 0.1"));
    t.wait_for("the first frame", |s| s.contains("8 GPUs"));
    // nvq handed the screen to nvq-top, in the same process.
    let comm = std::fs::read_to_string(format!("/proc/{}/comm", nvq_pid(&t))).unwrap();
    assert_eq!(comm.trim(), "nvq-top");
    signal_nvq(&t, "HUP");
    assert_restored(&t);
}

#[test]
fn a_panic_restores_the_terminal_and_says_so() {
    // Debug and test builds of nvq honour NVQ_TEST_TOP_PANIC: a panic on
    // the UI thread once the first frame is on the screen (with a key so
    // the frame is seen first). A release build ignores it.
    let sc = common::scenario("top_8gpu.toml");
    let t = Tmux::new("panic");
    t.start(
        80,
        24,
        &script(&t, &sc, "--interval 0.1").replacen(
            "NVML_SIM_SCENARIO=",
            "NVQ_TEST_TOP_PANIC=key NVML_SIM_SCENARIO=",
            1,
        ),
    );
    t.wait_for("the first frame", |s| s.contains("8 GPUs"));
    t.keys(&["x"]);
    let screen = t.wait_for("the exit status", |s| s.contains("EXIT "));
    assert!(screen.contains("EXIT 255"), "a panic exits 255:\n{screen}");
    assert!(
        screen.contains("nvq: internal error") && screen.contains("please report it"),
        "the panic's message is on the restored terminal:\n{screen}"
    );
    assert_restored_after(&t, 255);
}

#[test]
fn a_hung_gpu_is_late_and_the_keys_still_answer() {
    // GPU 1's power reading hangs for 5 s from its second call on.
    let sc = common::scenario("mon_hung_gpu.toml");
    let t = Tmux::new("hung");
    t.start(80, 24, &script(&t, &sc, "--interval 0.5"));
    let late = t.wait_for("the late GPU", |s| {
        s.lines()
            .any(|l| l.contains(" 1 H100") && l.contains("late"))
    });
    let row = late.lines().find(|l| l.contains(" 0 H100")).unwrap();
    assert!(
        row.contains("/80G") || row.contains("°C"),
        "GPU 0 still answers:\n{late}"
    );
    // The keys answer while the call hangs: the interval changes at once.
    let asked = Instant::now();
    t.keys(&["+"]);
    t.wait_for("the new interval", |s| s.contains("every 1s"));
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
    t.keys(&["q"]);
    assert_restored(&t);
}

/// A GPU's MIG layout is kept between samples and listed again once per
/// `MIG_RECHECK` (1 s): MIG mode turned on (GPU 7's mode reads 0 at the
/// first two listings, then 1) shows its devices within that period, and
/// turned off (0 again from the fifth listing) takes them away.
#[test]
fn a_mig_layout_change_shows_within_a_second_or_two() {
    let sc = common::scenario_at(
        "top_8gpu.toml",
        &[(
            "mig = { current = 1, pending = 1, max_devices = 7 }",
            "mig = { current = [0, 0, 1, 1, 0], pending = 1, max_devices = 7 }",
        )],
    );
    let t = Tmux::new("migchange");
    t.start(80, 24, &script(&t, sc.path(), "--interval 0.1"));
    let first = t.wait_for("the first frame", |s| {
        s.contains("8 GPUs") && s.contains(" 7 H100 80GB HBM3")
    });
    let started = Instant::now();
    assert!(!first.contains("GI1"), "MIG is still off:\n{first}");
    let on = t.wait_for("the MIG devices", |s| s.contains("└ 3g.40gb GI2 CI0"));
    assert!(on.contains("└ 3g.40gb GI1 CI0"), "{on}");
    // The third listing, two re-check periods after the first (a loaded
    // machine may be late by a sample or a few).
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    t.wait_for("MIG off again", |s| {
        s.contains("8 GPUs") && !s.contains("GI1")
    });
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "{took:?}");
    t.keys(&["q"]);
    assert_restored(&t);
}

/// What `top` reads less often than each sample still shows: an MPS client
/// that appears (the MPS list, empty at first, is asked for again once per
/// `EMPTY_RECHECK`, 1 s), a new power limit and new PCIe rates (read once per
/// `SLOW_EVERY`, 1 s). GPU 1's MPS list shows process 4100099 from its third
/// call, its power limit reads 500 W and its PCIe rx 4 MB/s from their third
/// calls.
#[test]
fn an_mps_client_a_new_power_limit_and_new_pcie_rates_show_within_a_few_seconds() {
    let sc = common::scenario_at(
        "top_8gpu.toml",
        &[
            (
                "power = { usage = 125000, limit = 700000 }",
                "power = { usage = 125000, limit = [700000, 700000, 500000] }",
            ),
            (
                "pcie = { rx_throughput = 2048, tx_throughput = 1024 }",
                "pcie = { rx_throughput = [2048, 2048, 4096], tx_throughput = 1024 }",
            ),
            (
                "[[device.process]]\npid = 4100011",
                "[[device.mps_process]]\npid = 4100099\nname = \"/usr/bin/mps-client\"\n\
                 used_memory = 53687091200\nalive = [0, 0, 1]\n\n[[device.process]]\npid = 4100011",
            ),
        ],
    );
    let t = Tmux::new("mpslimit");
    t.start(120, 40, &script(&t, sc.path(), "--interval 0.1"));
    let first = t.wait_for("the first frame", |s| {
        s.contains("8 GPUs") && s.contains("4100001")
    });
    let started = Instant::now();
    assert!(
        !first.contains("4100099"),
        "the MPS client is not listed yet:\n{first}"
    );
    assert!(first.contains("125/700W"), "{first}");
    let gpu1 = |s: &str| {
        s.lines()
            .find(|l| l.contains(" 1 H100"))
            .unwrap_or("")
            .to_string()
    };
    assert!(gpu1(&first).contains("rx  2.0M/s"), "{first}");
    let shown = t.wait_for("the MPS client, the new limit and rx rate", |s| {
        s.contains("4100099") && s.contains("125/500W") && gpu1(s).contains("rx  4.0M/s")
    });
    let row = shown.lines().find(|l| l.contains("4100099")).unwrap();
    assert!(
        row.contains(" M ") && row.contains("50G") && row.contains("mps-client"),
        "{row}"
    );
    // Two re-check periods after the first look (a loaded machine may be
    // late by a few samples).
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    t.keys(&["q"]);
    assert_restored(&t);
}

/// A GPU's graphics list, empty on a compute server, is asked for again
/// once a second (`EMPTY_RECHECK`), not every sample: GPU 1's graphics list
/// shows process 4100098 from its fifth call, which is about four seconds
/// in, not half a second; it then shows as a graphics process.
#[test]
fn an_empty_graphics_list_is_read_once_a_second() {
    let sc = common::scenario_at(
        "top_8gpu.toml",
        &[(
            "[[device.process]]\npid = 4100011",
            "[[device.graphics_process]]\npid = 4100098\nname = \"/usr/bin/Xorg\"\n\
             used_memory = 104857600\nalive = [0, 0, 0, 0, 1]\n\n[[device.process]]\npid = 4100011",
        )],
    );
    let t = Tmux::new("graphics");
    let started = Instant::now();
    t.start(120, 40, &script(&t, sc.path(), "--interval 0.1"));
    t.wait_for("the first frame", |s| {
        s.contains("8 GPUs") && s.contains("4100001")
    });
    // Read every sample, the fifth call would be half a second in.
    std::thread::sleep(Duration::from_millis(2500).saturating_sub(started.elapsed()));
    let early = t.screen();
    assert!(
        !early.contains("4100098"),
        "listed {:.1} s in:\n{early}",
        started.elapsed().as_secs_f64()
    );
    let shown = t.wait_for("the graphics process", |s| s.contains("4100098"));
    let row = shown.lines().find(|l| l.contains("4100098")).unwrap();
    assert!(row.contains(" G ") && row.contains("Xorg"), "{row}");
    t.keys(&["q"]);
    assert_restored(&t);
}

/// The SM% a process's row shows, read under the header's `SM%`.
fn sm_share(screen: &str, pid: &str) -> Option<u32> {
    let head = screen.lines().find(|l| l.starts_with("GPU     PID"))?;
    let end = head.find("SM%")? + "SM%".len();
    let row = screen.lines().find(|l| l.contains(pid))?;
    row.get(..end)?.split_whitespace().last()?.parse().ok()
}

#[test]
fn process_shares_are_read_once_a_second() {
    // Each read of the processes' shares gives the next SM%: 11, 12, 13...
    let series: Vec<String> = (11..=90).map(|v| v.to_string()).collect();
    let sc = common::scenario_at(
        "top_8gpu.toml",
        &[(
            "utilization = { sm = 11, mem = 3, enc = 0, dec = 0 }",
            &format!(
                "utilization = {{ sm = [{}], mem = 3, enc = 0, dec = 0 }}",
                series.join(", ")
            ),
        )],
    );
    let t = Tmux::new("shares");
    let started = Instant::now();
    t.start(120, 40, &script(&t, sc.path(), "--interval 0.1"));
    let first = t.wait_for("the first frame", |s| {
        s.contains("8 GPUs") && s.contains("4100011")
    });
    assert_eq!(sm_share(&first, "4100011"), Some(11), "{first}");
    // A new share shows within a second or two...
    let later = t.wait_for("a new SM%", |s| {
        sm_share(s, "4100011").is_some_and(|v| v >= 13)
    });
    // ...but not one per 100 ms sample: three seconds in, at most one read
    // a second since the start (and the first).
    std::thread::sleep(Duration::from_secs(3).saturating_sub(started.elapsed()));
    let screen = t.screen();
    let secs = started.elapsed().as_secs_f64();
    let reads = sm_share(&screen, "4100011").unwrap_or(0).saturating_sub(10);
    assert!(
        f64::from(reads) <= secs + 1.0,
        "{reads} reads in {secs:.1} s\n{later}\n{screen}"
    );
    assert!(screen.contains("4100011"), "{screen}");
    t.keys(&["q"]);
    assert_restored(&t);
}

#[test]
fn a_lost_gpu_is_shown_as_lost() {
    // GPU 1 falls off the bus after 7 calls.
    let sc = common::scenario("loops_lost.toml");
    let t = Tmux::new("lost");
    t.start(80, 24, &script(&t, &sc, "--interval 0.1"));
    let lost = t.wait_for("the lost GPU", |s| s.contains("GPU is lost"));
    let row = lost.lines().find(|l| l.contains("GPU is lost")).unwrap();
    assert!(row.contains(" 1 H100"), "{lost}");
    t.keys(&["C-c"]);
    assert_restored(&t);
}

#[test]
fn a_closed_terminal_ends_the_run() {
    let sc = common::scenario("top_8gpu.toml");
    let t = Tmux::new("closed");
    let pid_file = t.path("nvq");
    t.start(
        80,
        24,
        &format!(
            "echo $$ > {pid}; NVML_SIM_SCENARIO={sc} exec {nvq} top --nvml-lib {lib} --interval 0.1",
            pid = quoted(&pid_file),
            sc = quoted(&sc),
            nvq = quoted(&common::nvq_bin()),
            lib = quoted(&common::sim_lib()),
        ),
    );
    t.wait_for("the first frame", |s| s.contains("8 GPUs"));
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    // The terminal goes away (as when its window is closed): SIGHUP, then
    // reads that fail. nvq must end, not spin or hang.
    t.tmux(&["kill-server"]);
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit(") ").next().and_then(|r| r.chars().next()));
        if matches!(state, None | Some('Z') | Some('X')) {
            break;
        }
        assert!(
            Instant::now() < until,
            "nvq top still runs (state {state:?})"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The mouse, as a terminal sends it (xterm's SGR encoding, which `top`
/// asks for): a click on a GPU's line shows only its processes, a click on
/// a column's header sorts by it, and the terminal is restored after `q`.
#[test]
fn mouse_clicks_select_a_gpu_and_sort_under_tmux() {
    let sc = common::scenario("top_8gpu.toml");
    let t = Tmux::new("mouse");
    t.start(80, 24, &script(&t, &sc, "--interval 0.1"));
    let first = first_8gpu_frame(&t);
    // top asked the terminal for mouse events (tmux's view of the pane).
    let flags = || t.tmux(&["display", "-p", "#{mouse_any_flag}#{mouse_sgr_flag}"]);
    assert_eq!(flags().trim(), "11", "mouse reporting on while top runs");
    let lines: Vec<&str> = first.lines().collect();
    let gpu2 = lines.iter().position(|l| l.contains(" 2 H100")).unwrap();
    // SGR: ESC [ < button ; column ; row M, 1-based; button 0 is the left one.
    let click = |x: usize, y: usize| t.keys(&["-l", &format!("\x1b[<0;{};{}M", x + 1, y + 1)]);
    click(5, gpu2);
    let only = t.wait_for("GPU 2 alone", |s| s.contains("GPU 2 only"));
    let procs: Vec<&str> = only
        .lines()
        .skip_while(|l| !l.contains(" PID "))
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(
        !procs.is_empty() && procs.iter().all(|l| l.trim_start().starts_with("2 ")),
        "{only}"
    );
    let lines: Vec<&str> = only.lines().collect();
    let head = lines.iter().position(|l| l.contains(" PID ")).unwrap();
    click(lines[head].find("PID").unwrap() + 1, head);
    t.wait_for("the sort by PID", |s| s.contains("sort PID"));
    t.keys(&["q"]);
    assert_restored(&t);
    assert_eq!(flags().trim(), "00", "mouse reporting off after top");
}

/// The pane's screen, cursor and mouse modes: `alternate cursor mouse`,
/// where mouse is 1 when any mouse reporting is on.
fn modes(t: &Tmux) -> String {
    let m = t.tmux(&[
        "display",
        "-p",
        "#{alternate_on} #{cursor_flag} #{mouse_any_flag}#{mouse_button_flag}\
         #{mouse_standard_flag}#{mouse_all_flag}#{mouse_sgr_flag}",
    ]);
    let (screen, mouse) = m.trim().rsplit_once(' ').unwrap_or_default();
    format!("{screen} {}", u8::from(mouse.contains('1')))
}

/// Wait (at most 20 s) for the pane's modes to be `want`.
fn wait_for_modes(t: &Tmux, want: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    while modes(t) != want && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(modes(t), want, "the screen:\n{}", t.screen());
}

#[test]
fn ctrl_z_and_sigtstp_put_the_terminal_back_and_fg_redraws() {
    let sc = common::scenario("top_8gpu.toml");
    let t = Tmux::new("tstp");
    // A shell with job control (`set -m`), as an interactive one has: a
    // stopped nvq top returns to it (exit 148, 128 + SIGTSTP), it saves the
    // terminal's settings, waits for Enter, and `fg` continues nvq top;
    // twice.
    let stopped = |n: u32| {
        format!(
            "echo \"STOPPED $?\"; stty -g > {}; read go; fg; ",
            quoted(&t.path(&format!("stopped{n}")))
        )
    };
    let line = script(&t, &sc, "--interval 0.2").replacen(
        "NVML_SIM_SCENARIO=",
        "set -m; NVML_SIM_SCENARIO=",
        1,
    );
    let line = line.replacen(
        "echo \"EXIT $?\"",
        &format!("{}{}echo \"EXIT $?\"", stopped(1), stopped(2)),
        1,
    );
    t.start(80, 24, &line);
    t.wait_for("the first frame", |s| s.contains("8 GPUs"));
    wait_for_modes(&t, "1 0 1");
    let before = std::fs::read_to_string(t.path("before")).unwrap();
    for (n, how) in [(1, "Ctrl+Z"), (2, "SIGTSTP")] {
        if n == 1 {
            t.keys(&["C-z"]);
        } else {
            signal_nvq(&t, "TSTP");
        }
        let screen = t.wait_for(&format!("the shell after {how}"), |s| {
            s.matches("STOPPED 148").count() == n
        });
        assert!(
            !screen.contains("8 GPUs"),
            "{how}: the alternate screen stays:\n{screen}"
        );
        wait_for_modes(&t, "0 1 0");
        let read = |f: &str| std::fs::read_to_string(t.path(f)).unwrap_or_default();
        let until = Instant::now() + Duration::from_secs(10);
        while !read(&format!("stopped{n}")).ends_with('\n') && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            read(&format!("stopped{n}")),
            before,
            "{how}: raw mode stays on"
        );
        t.keys(&["Enter"]);
        // `fg` has continued nvq top: the whole frame again, and its modes.
        t.wait_for(&format!("the frame after fg ({how})"), |s| {
            s.contains("8 GPUs") && s.contains("leaky")
        });
        wait_for_modes(&t, "1 0 1");
    }
    t.keys(&["q"]);
    assert_restored(&t);
}

/// `nvq top --hosts` under tmux: two `nvq serve` nodes, a refused port and
/// a node that accepts but never answers. Each node has its header line,
/// the processes their host; the silent node is late, and a node stopped
/// mid-run shows as failed while the keys still answer; `q` quits at once.
#[test]
fn hosts_show_by_node_and_a_node_that_stops_never_freezes_the_keys() {
    let (a, mut b) = (
        crate::hosts::Node::start(2, &[]),
        crate::hosts::Node::start(1, &[]),
    );
    let refused = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    // Accepts and holds its connections, never answering.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let quiet = silent.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in silent.incoming() {
            held.push(c);
        }
    });
    let hosts = format!("{},{},{refused},{quiet}", a.addr, b.addr);
    let sc = common::scenario("dmon_h100_load.toml");
    let t = Tmux::new("hosts");
    t.start(
        120,
        40,
        &script(&t, &sc, &format!("--hosts {hosts} -d 0.5")),
    );
    let header = |s: &str, host: &str, what: &str| {
        s.lines().any(|l| l.starts_with(&format!("{host}  {what}")))
    };
    let first = t.wait_for("every node's header", |s| {
        header(s, &a.addr, "reachable, 2 GPUs")
            && header(s, &b.addr, "reachable, 1 GPU")
            && header(s, &refused, "failed: cannot connect")
            && header(s, &quiet, "late")
    });
    assert!(first.contains("3 GPUs on 2/4 hosts"), "{first}");
    // Each node's GPUs under its header.
    let lines: Vec<&str> = first.lines().collect();
    let at = |host: &str| lines.iter().position(|l| l.starts_with(host)).unwrap();
    assert!(lines[at(&a.addr) + 2].contains(" 1 H100"), "{first}");
    assert!(lines[at(&b.addr) + 1].contains(" 0 H100"), "{first}");
    // The process table has each process's host, first.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&a.addr) && l.contains("4242")),
        "{first}"
    );
    // A node stopped mid-run: shown failed, the others still answer.
    b.stop();
    // (Cut off mid-answer, it is a broken answer; then it refuses.)
    let down = t.wait_for("the stopped node shown failed", |s| {
        header(s, &b.addr, "failed: ")
    });
    t.wait_for("the stopped node refusing", |s| {
        header(s, &b.addr, "failed: cannot connect")
    });
    assert!(header(&down, &a.addr, "reachable, 2 GPUs"), "{down}");
    // The keys answer at once meanwhile.
    let asked = Instant::now();
    t.keys(&["+"]);
    t.wait_for("the new interval", |s| s.contains("every 1s"));
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
    let asked = Instant::now();
    t.keys(&["q"]);
    assert_restored(&t);
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "q took {:?}",
        asked.elapsed()
    );
}

/// `nvq top --hosts`: the selected GPU is kept by its node and index, not
/// by its row: when a node that was down answers, its GPUs come before the
/// selected one's, and the selection stays on the same node's same GPU.
#[test]
fn the_selection_stays_on_its_node_and_gpu_when_a_node_comes_back() {
    let b = crate::hosts::Node::start(2, &[]);
    let a = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let sc = common::scenario("dmon_h100_load.toml");
    let t = Tmux::new("follow");
    t.start(
        120,
        40,
        &script(&t, &sc, &format!("--hosts {a},{} -d 0.5", b.addr)),
    );
    let header = |s: &str, host: &str, what: &str| {
        s.lines().any(|l| l.starts_with(&format!("{host}  {what}")))
    };
    // The node and GPU index of the selected line (`▶ 1 H100...`), by the
    // node header above it.
    let selected = |s: &str| -> Option<(String, String)> {
        let lines: Vec<&str> = s.lines().collect();
        let at = lines.iter().position(|l| l.starts_with('▶'))?;
        let index = lines[at]
            .trim_start_matches('▶')
            .split_whitespace()
            .next()?;
        let host = lines[..at].iter().rev().find_map(|l| {
            [&a, &b.addr]
                .into_iter()
                .find(|h| l.starts_with(h.as_str()))
        })?;
        Some((host.clone(), index.to_string()))
    };
    t.wait_for("node b reachable, node a down", |s| {
        header(s, &b.addr, "reachable, 2 GPUs") && header(s, &a, "failed: ")
    });
    t.keys(&["Down"]);
    let want = Some((b.addr.clone(), "1".to_string()));
    t.wait_for("b's GPU 1 selected", |s| selected(s) == want);
    // Node a comes up with three GPUs, listed before b's.
    let _a = crate::hosts::Node::start_on(3, &[], &a);
    let up = t.wait_for("node a reachable", |s| header(s, &a, "reachable, 3 GPUs"));
    assert_eq!(selected(&up), want, "{up}");
    t.keys(&["q"]);
    assert_restored(&t);
}
