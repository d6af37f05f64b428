//! `nvq plot` on logs that anyone may have written: names with characters XML forbids, numbers near f64's
//! largest, lines without end, hundreds of thousands of series or columns, terminal escapes in the text its
//! errors quote, names longer than the picture is wide. Each ends in bounded time and memory with a valid
//! picture or a message naming the file and line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::hostile_users::xml_char;
use crate::plot::{plot, polylines, tmp};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// The most a plot here may allocate (RLIMIT_DATA): a runaway read fails fast instead of taking the machine.
const DATA_LIMIT: u64 = 512 << 20;

/// `nvq plot ARGS` with its heap limited to `data` bytes, killed after `limit`: its output, and whether it
/// ended by itself.
fn plot_bounded(args: &[&str], data: u64, limit: Duration) -> (Output, bool) {
    let mut cmd = crate::common::nvq_command();
    cmd.arg("plot").args(args);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else of the parent's.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: data,
                rlim_max: data,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    let ended = loop {
        if child.try_wait().unwrap().is_some() {
            break true;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            break false;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    (
        Output {
            status,
            stdout: Vec::new(),
            stderr,
        },
        ended,
    )
}

fn err(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Plot the log `name` (written with `text`) to `name.svg`, bounded: its output, whether it ended in 120 s.
fn plot_log(name: &str, text: &str, extra: &[&str]) -> (Output, bool) {
    let log = tmp(name);
    std::fs::write(&log, text).unwrap();
    let svg = tmp(&format!("{name}.svg"));
    let mut args = vec![log.to_str().unwrap(), "-o", svg.to_str().unwrap()];
    args.extend_from_slice(extra);
    plot_bounded(&args, DATA_LIMIT, Duration::from_secs(120))
}

/// [`plot_log`], asserting success: the SVG's text.
fn plot_ok(name: &str, text: &str, extra: &[&str]) -> String {
    let (out, ended) = plot_log(name, text, extra);
    assert!(ended, "{name}: still drawing after 120 s");
    assert!(out.status.success(), "{name}: {}", err(&out));
    std::fs::read_to_string(tmp(&format!("{name}.svg"))).unwrap()
}

fn assert_xml_chars(what: &str, svg: &str) {
    let bad: Vec<char> = svg.chars().filter(|c| !xml_char(*c)).collect();
    assert!(
        bad.is_empty(),
        "{what}: the SVG holds {bad:?}, which XML 1.0 forbids"
    );
}

/// `timestamp, gpu_uuid, pid, process_name, used_memory [MiB]` rows of one process named `name`.
fn apps_csv(name: &str, rows: usize) -> String {
    let mut s = String::from("timestamp, gpu_uuid, pid, process_name, used_memory [MiB]\n");
    for i in 0..rows {
        s.push_str(&format!(
            "2026/12/01 20:11:{i:02}.000, GPU-1, 4242, {name}, {} MiB\n",
            100 + 10 * i
        ));
    }
    s
}

// ---- 5. characters XML 1.0 forbids ----

/// A process name holding U+0001, ESC, DEL, a C1 control, U+FFFE and U+FFFF (raw in a CSV cell, as JSON escapes
/// in NDJSON), and a column named with them: the SVG holds none of them, `?` in their place, as `-q -x` writes.
#[test]
fn the_svg_is_xml_whatever_the_log_names_hold() {
    let evil = "evil\u{1}\u{1b}[31m\u{7f}\u{85}\u{FFFE}\u{FFFF}name";
    let svg = plot_ok("xml.csv", &apps_csv(evil, 5), &[]);
    assert_xml_chars("CSV", &svg);
    assert!(svg.contains("PID 4242 evil??[31m????"), "{svg}");
    let mut ndjson = String::new();
    for i in 0..5 {
        ndjson.push_str(&format!(
            "{{\"timestamp\":\"2026/12/01 20:11:{i:02}.000\",\"gpu_uuid\":\"GPU-1\",\"pid\":4242,\
             \"process_name\":\"evil\\u0001\\u001b[31m\\u007f\\u0085\\ufffe\\uffffname\",\"used_memory\":{}}}\n",
            100 + i
        ));
    }
    let svg = plot_ok("xml.ndjson", &ndjson, &[]);
    assert_xml_chars("NDJSON", &svg);
    assert!(svg.contains("PID 4242 evil??[31m????"), "{svg}");
    // A column's name is the panel's caption.
    let mut csv = String::from("timestamp, index, bad\u{1}\u{FFFF}field\n");
    for i in 0..3 {
        csv.push_str(&format!("2026/12/01 20:11:0{i}.000, 0, {i}\n"));
    }
    let svg = plot_ok("xmlcol.csv", &csv, &[]);
    assert_xml_chars("a column's name", &svg);
    assert!(svg.contains("bad??field"), "{svg}");
}

// ---- 6. numbers near f64's largest ----

/// `memory.total`, `memory.used` and `utilization.gpu` of 1e305 to 1.7e308 (and `inf`, `NaN`, the largest
/// negative number) among ordinary rows: drawn in bounded time, without those numbers, and the picture says how
/// many it left out. A year beyond any calendar is refused, not a panic.
#[test]
fn numbers_near_the_largest_double_end_in_bounded_time() {
    let head = "timestamp, index, memory.used [MiB], memory.total [MiB], utilization.gpu [%]\n";
    let mut csv = head.to_string();
    for (i, (used, total, util)) in [
        ("100", "81920", "5"),
        ("200", "1.7e308", "1e306"),
        ("1e305", "81920", "7"),
        ("-1.7e308", "inf", "NaN"),
        ("300", "81920", "9"),
    ]
    .iter()
    .enumerate()
    {
        csv.push_str(&format!(
            "2026/12/01 20:11:0{i}.000, 0, {used} MiB, {total} MiB, {util} %\n"
        ));
    }
    // `inf` and `NaN` are no numbers nvq reads (text, not drawn); the four others are left out.
    let svg = plot_ok("huge.csv", &csv, &[]);
    assert!(svg.contains("4 numbers beyond"), "{svg}");
    let mut ndjson = String::new();
    for (i, (used, total)) in [("100", "81920"), ("1e305", "1.7e308"), ("300", "81920")]
        .iter()
        .enumerate()
    {
        ndjson.push_str(&format!(
            "{{\"timestamp\":\"2026/12/01 20:11:0{i}.000\",\"index\":0,\"memory.used\":{used},\
             \"memory.total\":{total},\"utilization.gpu\":1e306}}\n"
        ));
    }
    let svg = plot_ok("huge.ndjson", &ndjson, &[]);
    assert!(svg.contains("5 numbers beyond"), "{svg}");
    // Every number too large: nothing to draw, said so.
    let all = format!("{head}2026/12/01 20:11:00.000, 0, 1e305 MiB, 1e308 MiB, 1e307 %\n");
    let (out, ended) = plot_log("allhuge.csv", &all, &[]);
    assert!(ended && out.status.code() == Some(2), "{}", err(&out));
    // A year no calendar has: refused as a timestamp, not an overflow.
    let year =
        "timestamp, index, memory.used [MiB]\n9223372036854775807/12/31 23:59:59.000, 0, 1 MiB\n";
    let (out, ended) = plot_log("year.csv", year, &[]);
    assert!(ended, "still running");
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(err(&out).contains("not a timestamp"), "{}", err(&out));
}

// ---- 7. bounded input ----

/// A line without end (`/dev/zero`) or longer than 1 MiB is refused at once, naming the file and the line.
#[test]
fn a_line_over_a_mebibyte_is_refused_naming_its_line() {
    let (out, ended) = plot_bounded(
        &["/dev/zero", "-o", tmp("zero.svg").to_str().unwrap()],
        DATA_LIMIT,
        Duration::from_secs(60),
    );
    assert!(ended, "nvq plot /dev/zero still reading after 60 s");
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    let e = err(&out);
    assert!(
        e.contains("/dev/zero, line 1") && e.contains("longer than 1 MiB"),
        "{e}"
    );
    let mut csv = apps_csv("train", 2);
    csv.push_str(&"x".repeat((1 << 20) + 10));
    csv.push('\n');
    let (out, _) = plot_log("longline.csv", &csv, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    let e = err(&out);
    assert!(
        e.contains("longline.csv, line 4") && e.contains("longer than 1 MiB"),
        "{e}"
    );
}

/// 200,000 GPUs: the 20 largest series are drawn, the picture says how many it left out, and the SVG stays small.
#[test]
fn two_hundred_thousand_series_draw_the_largest_twenty() {
    let mut csv = String::from("timestamp, index, uuid, memory.used [MiB]\n");
    for s in 0..2 {
        for g in 0..200_000u32 {
            csv.push_str(&format!(
                "2026/12/01 20:11:0{s}.000, {g}, GPU-{g:08}, {} MiB\n",
                g % 1000 + s
            ));
        }
    }
    // The largest: GPU 999, 1999, ... (999 MiB then 1000 MiB).
    let svg = plot_ok("many.csv", &csv, &[]);
    let lines = polylines(&svg);
    assert_eq!(lines.len(), 20, "20 lines drawn");
    assert!(svg.contains("the 20 largest of 200000 series"), "no note");
    assert!(
        svg.contains("GPU 999 ") || svg.contains("GPU 999<"),
        "GPU 999"
    );
    assert!(!svg.contains("GPU 998"), "a smaller one drawn");
    assert!(svg.len() < 2 << 20, "an SVG of {} bytes", svg.len());
}

/// 20,000 numeric columns: eight panels, and a note of the columns left out.
#[test]
fn twenty_thousand_columns_draw_eight_panels() {
    let n = 20_000;
    let mut csv = String::from("timestamp");
    for c in 0..n {
        csv.push_str(&format!(", c{c}"));
    }
    csv.push('\n');
    for s in 0..3 {
        csv.push_str(&format!("2026/12/01 20:11:0{s}.000"));
        for c in 0..n {
            csv.push_str(&format!(", {}", c % 97 + s));
        }
        csv.push('\n');
    }
    let svg = plot_ok("wide.csv", &csv, &[]);
    assert_eq!(polylines(&svg).len(), 8, "a line in each of 8 panels");
    assert!(svg.contains("19992 more fields not drawn"), "no note");
    assert!(svg.len() < 2 << 20, "an SVG of {} bytes", svg.len());
}

/// A 64 MB NDJSON log is drawn with a heap of at most 100 MB: it is read line by line, not whole.
#[test]
fn a_large_ndjson_log_is_drawn_in_bounded_memory() {
    let log = tmp("big.ndjson");
    {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(std::fs::File::create(&log).unwrap());
        let mut written = 0usize;
        let mut i = 0u64;
        while written < 64 << 20 {
            let line = format!(
                "{{\"timestamp\":\"2026/12/01 {:02}:{:02}:{:02}.{:03}\",\"index\":{},\"memory.used\":{},\"utilization.gpu\":{}}}\n",
                i / 8 / 36000 % 24,
                i / 8 / 600 % 60,
                i / 8 / 10 % 60,
                i / 8 % 10 * 100,
                i % 8,
                20000 + i % 977,
                i % 101
            );
            written += line.len();
            w.write_all(line.as_bytes()).unwrap();
            i += 1;
        }
    }
    let svg = tmp("big.svg");
    let (out, ended) = plot_bounded(
        &[log.to_str().unwrap(), "-o", svg.to_str().unwrap()],
        100 << 20,
        Duration::from_secs(300),
    );
    std::fs::remove_file(&log).unwrap();
    assert!(ended, "still drawing after 300 s");
    assert!(out.status.success(), "{}", err(&out));
    assert_eq!(polylines(&std::fs::read_to_string(&svg).unwrap()).len(), 16);
}

// ---- 8. terminal escapes in the text an error quotes ----

fn assert_no_controls(what: &str, e: &str) {
    let bad: Vec<char> = e
        .trim_end_matches('\n')
        .chars()
        .filter(|c| c.is_control())
        .collect();
    assert!(bad.is_empty(), "{what}: {bad:?} reach the terminal: {e:?}");
}

/// A timestamp or column name that sets the terminal's title or clipboard is quoted with `?` for its control
/// characters, as the table writers print them.
#[test]
fn text_an_error_quotes_from_the_log_carries_no_control_characters() {
    let osc = "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;PWNED\u{7}";
    let cases = [
        (
            "ts.csv",
            format!("timestamp, index, memory.used [MiB]\n{osc}, 0, 1 MiB\n"),
            vec![],
        ),
        (
            "ts.ndjson",
            "{\"timestamp\":\"\\u001b]52;c;cHduZWQ=\\u0007\\u001b]0;PWNED\\u0007\",\"index\":0}\n"
                .to_string(),
            vec![],
        ),
        (
            "col.csv",
            format!("timestamp, {osc}\n2026/12/01 20:11:08.691, 1\n"),
            vec!["--field", "memory.used"],
        ),
    ];
    for (name, text, extra) in cases {
        let log = tmp(name);
        std::fs::write(&log, text).unwrap();
        let svg = tmp(&format!("{name}.svg"));
        let mut args = vec![log.to_str().unwrap(), "-o", svg.to_str().unwrap()];
        args.extend(extra);
        let out = plot(&args);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let e = err(&out);
        assert!(e.contains("?]0;PWNED?"), "{name}: {e:?}");
        assert_no_controls(name, &e);
    }
}

// ---- 18. long names ----

/// The `<text>` elements of an SVG: x, font size in pixels and text.
fn texts(svg: &str) -> Vec<(f64, f64, String)> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let attr = |name: &str| -> f64 {
                let k = format!(" {name}=\"");
                let start = t.find(&k).unwrap() + k.len();
                t[start..start + t[start..].find('"').unwrap()]
                    .parse()
                    .unwrap()
            };
            let body = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
            let body = body.split("</title>").last().unwrap().trim().to_string();
            (attr("x"), attr("font-size"), body)
        })
        .collect()
}

fn picture_width(svg: &str) -> f64 {
    let k = "width=\"";
    let start = svg.find(k).unwrap() + k.len();
    svg[start..start + svg[start..].find('"').unwrap()]
        .parse()
        .unwrap()
}

/// A process whose command line is longer than the picture is wide: its name at the line's end is cut, with an
/// ellipsis, to end inside the picture; the whole name is the SVG's tooltip.
#[test]
fn a_long_name_is_cut_at_the_pictures_edge_and_kept_whole_in_a_tooltip() {
    let long = "python3 /home/someone/projects/large-language-model/training/scripts/\
                train_with_a_very_long_name.py --config configs/an-even-longer-configuration-name.yaml --seed 1234";
    let svg = plot_ok("longname.csv", &apps_csv(long, 6), &["--width", "800"]);
    let width = picture_width(&svg);
    let texts = texts(&svg);
    // DejaVu Sans averages over half its size a character: a lower bound of each text's width.
    for (x, size, text) in &texts {
        let w = text.chars().count() as f64 * size * 0.5;
        assert!(
            x + w <= width,
            "{text:?} at {x} runs to {} of {width}",
            x + w
        );
    }
    assert!(
        texts
            .iter()
            .any(|(_, _, t)| t.starts_with("PID 4242 python3") && t.contains('…')),
        "no cut name: {texts:?}"
    );
    assert!(
        svg.contains(&format!("<title>PID 4242 {long}")),
        "no tooltip with the whole name"
    );
}
