//! Snapshots of `nvq top`'s screen, drawn on ratatui's `TestBackend`:
//! 1, 2, 8 and 64 GPUs, MIG, a hung GPU, a lost GPU, no processes, hostile
//! process names, at 80×24 and 200×60. The snapshots are in
//! `tests/snapshots/top/`; `NVQ_UPDATE_SNAPSHOTS=1 cargo test --lib tui`
//! writes them again. Each test also asserts what a person would look for.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::columns::{Leak, ProcCol};
use super::state::{Key, Ui};
use super::view::{self, FullMap, LeakMap, Screen, MEM_FIELD, UTIL_FIELD};
use nvq_core::model::history::{History, Point, SeriesKey};
use nvq_core::model::top::{GpuSnap, Health, MigSnap, ProcSnap, TopSample};
use nvq_core::model::NvmlCode;
use ratatui::backend::TestBackend;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

const GIB: u64 = 1 << 30;
const T0: f64 = 1_790_000_000.0;

fn gpu(i: u32) -> GpuSnap {
    let mut g = GpuSnap::unknown(
        i,
        format!("GPU-{i:08x}-0000-0000-0000-000000000000").into(),
        "NVIDIA H100 80GB HBM3".into(),
        Health::Fresh,
    );
    g.mem_total = Some(80 * GIB);
    g.mem_used = Some(u64::from(i % 8 + 1) * 8 * GIB);
    g.util_gpu = Some(f64::from(i * 13 % 101));
    g.util_mem = Some(f64::from(i * 7 % 60));
    g.temp_c = Some(f64::from(35 + i % 40));
    g.power_w = Some(f64::from(100 + i * 37 % 600));
    g.power_limit_w = Some(700.0);
    g.clock_sm_mhz = Some(1980.0);
    g.clock_mem_mhz = Some(2619.0);
    g.fan_pct = None;
    g.pcie_rx = Some(1.5 * GIB as f64);
    g.pcie_tx = Some(300.0 * 1024.0 * 1024.0);
    g
}

fn proc_on(g: &GpuSnap, pid: u32, mem_gib: u64, command: &str) -> ProcSnap {
    ProcSnap {
        host: g.host.clone(),
        gpu: g.index,
        gpu_uuid: g.uuid.clone(),
        pid,
        start: 1000 + u64::from(pid),
        kind: "C",
        user: Some("alice".into()),
        gpu_mem: Some(mem_gib * GIB),
        sm: Some(f64::from(pid % 100)),
        enc: Some(0.0),
        dec: None,
        cpu_pct: Some(f64::from(pid % 7) * 12.5),
        host_mem: Some(2 * GIB + u64::from(pid) * 4096),
        container: (pid % 2 == 0).then(|| "4f1b2c3d4e5f".into()),
        command: command.into(),
    }
}

/// A machine of `n` GPUs, each with two processes, and 10 minutes of
/// history: GPU 0's memory rising from 8 GiB, the others flat.
struct Fixture {
    sample: TopSample,
    history: History,
    leaks: LeakMap,
    full: FullMap,
}

fn fixture(n: u32) -> Fixture {
    let gpus: Vec<GpuSnap> = (0..n).map(gpu).collect();
    let mut procs = Vec::new();
    for g in &gpus {
        procs.push(proc_on(
            g,
            1000 + g.index * 10,
            4,
            "python3 train.py --epochs 90",
        ));
        procs.push(proc_on(
            g,
            1001 + g.index * 10,
            2,
            "/usr/bin/ffmpeg -i in.mp4 out.mkv",
        ));
    }
    let mut history = History::new(6000);
    for g in &gpus {
        let key = SeriesKey::Gpu {
            uuid: g.uuid.to_string(),
        };
        for k in 0..600u32 {
            let t = T0 - 600.0 + f64::from(k) + 1.0;
            let used = if g.index == 0 {
                8.0 * GIB as f64 + f64::from(k) * 0.1 * GIB as f64
            } else {
                g.mem_used.unwrap() as f64
            };
            history.push(&key, MEM_FIELD, Point { t, v: used });
            history.push(
                &key,
                UTIL_FIELD,
                Point {
                    t,
                    v: f64::from((k * 7 + g.index) % 100),
                },
            );
        }
    }
    let mut gpus = gpus;
    if let Some(g) = gpus.first_mut() {
        g.mem_used = Some(8 * GIB + 599 * GIB / 10);
    }
    Fixture {
        sample: TopSample {
            t: T0,
            gpus,
            procs,
            hosts: Vec::new(),
        },
        history,
        leaks: HashMap::new(),
        full: HashMap::new(),
    }
}

/// The fixture's screen with the person's choices `ui`.
fn screen_of<'a>(f: &'a Fixture, ui: &'a Ui) -> Screen<'a> {
    Screen {
        sample: &f.sample,
        history: &f.history,
        leaks: &f.leaks,
        gpu_full_s: &f.full,
        ui,
        title: "nvq top · driver 590.48.01",
    }
}

fn draw(f: &Fixture, ui: &Ui, w: u16, h: u16) -> String {
    let mut term = crate::tui::term::Frames::new(TestBackend::new(w, h)).unwrap();
    let screen = screen_of(f, ui);
    term.draw(|area, buf| view::render(&screen, area, buf))
        .unwrap();
    let text = super::buffer_text(term.backend().buffer());
    // Whatever the data holds, each row is exactly one line of the screen.
    assert_eq!(text.lines().count(), usize::from(h));
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text}");
    text
}

fn snapshot(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/top")
        .join(format!("{name}.txt"));
    let regen = "NVQ_UPDATE_SNAPSHOTS=1 cargo test --lib tui";
    if let Err(e) = crate::test_support::check_snapshot(&path, actual, regen) {
        panic!("{e}");
    }
}

fn ui() -> Ui {
    Ui::new(1000, false)
}

/// The fixture drawn with the default choices at 80×24 and at 200×60: each
/// screen looked at by `check` (told whether it is the wide one) and compared
/// with snapshot `{name}_80x24` or `{name}_200x60`.
fn check_both_sizes(f: &Fixture, name: &str, check: impl Fn(&str, bool)) {
    for (w, h) in [(80, 24), (200, 60)] {
        let text = draw(f, &ui(), w, h);
        check(&text, w > 100);
        snapshot(&format!("{name}_{w}x{h}"), &text);
    }
}

#[test]
fn one_gpu() {
    check_both_sizes(&fixture(1), "one_gpu", |text, _| {
        assert!(text.contains("H100 80GB HBM3"), "{text}");
        assert!(text.contains("python3 train.py"), "{text}");
    });
}

#[test]
fn two_gpus() {
    check_both_sizes(&fixture(2), "two_gpus", |text, _| {
        assert!(text.contains("2 GPUs"), "{text}");
    });
}

#[test]
fn eight_gpus_and_their_processes_fit_80x24() {
    check_both_sizes(&fixture(8), "eight_gpus", |text, wide| {
        if wide {
            assert!(
                text.contains("CONTAINER") && text.contains("HOST-MEM") && text.contains("1980MHz"),
                "{text}"
            );
            assert_eq!(
                text.lines().filter(|l| l.contains("ffmpeg")).count(),
                8,
                "{text}"
            );
            return;
        }
        let lines: Vec<&str> = text.lines().collect();
        for i in 0..8 {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with(&format!("{} {i} H100", if i == 0 { "▶" } else { " " }))),
                "GPU {i} missing:\n{text}"
            );
        }
        assert!(!text.contains("more"), "8 GPUs need no scrolling:\n{text}");
        // Sorted by GPU memory, largest first: GPU 0's 4 GiB processes lead.
        assert!(text.contains("GPU-MEM"), "{text}");
        assert!(
            lines.iter().filter(|l| l.contains("train.py")).count() >= 4,
            "{text}"
        );
    });
}

#[test]
fn sixty_four_gpus_scroll_to_the_selected_one() {
    let f = fixture(64);
    let mut ui = ui();
    let text = draw(&f, &ui, 80, 24);
    assert!(text.contains("64 GPUs") && text.contains("more"), "{text}");
    snapshot("sixty_four_gpus_80x24", &text);
    for _ in 0..40 {
        ui.key(Key::Down, 64);
    }
    let text = draw(&f, &ui, 80, 24);
    assert!(text.lines().any(|l| l.starts_with("▶40 H100")), "{text}");
    assert!(text.contains("GPU 40"), "{text}");
    snapshot("sixty_four_gpus_200x60", &draw(&f, &ui, 200, 60));
}

#[test]
fn mig_devices_are_rows_under_their_gpu() {
    let mut f = fixture(2);
    f.sample.gpus[0].mig = (0..3)
        .map(|i| MigSnap {
            profile: "2g.20gb".into(),
            uuid: format!("MIG-{i}").into(),
            gpu_instance: Some(3 + i),
            compute_instance: Some(0),
            mem_used: Some(u64::from(i + 1) * GIB),
            mem_total: Some(20 * GIB),
        })
        .collect();
    check_both_sizes(&f, "mig", |text, wide| {
        if wide {
            assert!(text.contains("└ MIG 2g.20gb  GI 4  CI 0"), "{text}");
            return;
        }
        let lines: Vec<&str> = text.lines().collect();
        let g0 = lines.iter().position(|l| l.contains(" 0 H100")).unwrap();
        assert!(lines[g0 + 1].contains("└ 2g.20gb GI3 CI0"), "{text}");
        assert!(
            lines[g0 + 3].contains("GI5") && lines[g0 + 3].contains("3.0G/20G"),
            "{text}"
        );
        assert!(lines[g0 + 4].contains(" 1 H100"), "{text}");
    });
}

#[test]
fn a_hung_gpu_is_late_not_frozen() {
    let mut f = fixture(2);
    let g = &f.sample.gpus[1];
    f.sample.gpus[1] = GpuSnap::unknown(1, g.uuid.clone(), g.name.clone(), Health::Late);
    f.sample.procs.retain(|p| p.gpu != 1);
    check_both_sizes(&f, "hung", |text, _| {
        let line = text.lines().find(|l| l.contains(" 1 H100")).unwrap();
        assert!(line.contains("late"), "{text}");
        assert!(
            !line.contains("G/80G"),
            "a late GPU shows no memory figure:\n{text}"
        );
    });
}

#[test]
fn a_lost_gpu_says_so() {
    let mut f = fixture(2);
    let g = &f.sample.gpus[0];
    f.sample.gpus[0] = GpuSnap::unknown(
        0,
        g.uuid.clone(),
        g.name.clone(),
        Health::Lost(NvmlCode::GPU_IS_LOST),
    );
    f.sample.procs.retain(|p| p.gpu != 0);
    check_both_sizes(&f, "lost", |text, _| {
        let line = text.lines().find(|l| l.contains(" 0 H100")).unwrap();
        assert!(line.contains("GPU is lost"), "{text}");
    });
}

#[test]
fn no_processes() {
    let mut f = fixture(2);
    f.sample.procs.clear();
    check_both_sizes(&f, "no_processes", |text, _| {
        assert!(text.contains("no processes on these GPUs"), "{text}");
    });
}

#[test]
fn hostile_process_names_stay_on_their_line() {
    let mut f = fixture(1);
    let g = f.sample.gpus[0].clone();
    f.sample.procs = vec![
        proc_on(&g, 7, 9, "evil\x1b[2J\x1b]0;pwned\x07\nsecond line\rback"),
        proc_on(&g, 8, 8, &"x".repeat(5000)),
        // Invalid UTF-8 from /proc arrives as U+FFFD (from_utf8_lossy).
        proc_on(&g, 9, 7, &String::from_utf8_lossy(b"bad\xff\xfeutf8")),
        proc_on(&g, 10, 6, "\u{202e}rtl override \u{0}nul"),
    ];
    f.sample.procs[0].user = Some("bob\x1b[31m".into());
    f.sample.gpus[0].name = "NVIDIA\nH100\x1b[5m".into();
    check_both_sizes(&f, "hostile", |text, wide| {
        assert!(!text.contains('\x1b'), "{text}");
        let full = "evil?[2J?]0;pwned??second line?back";
        let shown = if wide { full } else { "evil?[2J?]0;pwned" };
        assert!(text.contains(shown), "{text}");
        assert!(text.contains("bad\u{fffd}\u{fffd}utf8"), "{text}");
        assert!(
            text.contains("?rtl override ?nul") && !text.contains('\u{202e}'),
            "{text}"
        );
    });
}

#[test]
fn a_leak_is_marked_with_rate_and_time_to_full() {
    let mut f = fixture(2);
    f.leaks.insert(
        (Arc::default(), 0, 1000),
        Leak {
            rate: 100.0 * 1024.0 * 1024.0,
            gpu_full_s: Some(720.0),
        },
    );
    f.full.insert((Arc::default(), 0), 720.0);
    let text = draw(&f, &ui(), 80, 24);
    let row = text.lines().find(|l| l.contains(" 1000 ")).unwrap();
    assert!(row.contains("▲+100M/s 12m"), "{text}");
    assert!(text.contains("memory full in 12m"), "{text}");
    snapshot("leak_80x24", &text);
}

#[test]
fn the_memory_curve_rises_and_zoom_changes_its_span() {
    let f = fixture(1);
    let mut ui = ui();
    let text = draw(&f, &ui, 80, 24);
    let lines: Vec<&str> = text.lines().collect();
    let top = lines.iter().position(|l| l.starts_with("mem ")).unwrap();
    // Two rows of curve: over ten minutes GPU 0 went from 8 GiB to 68 GiB
    // of 80: the upper row is empty on the left and filled on the right.
    let upper: Vec<char> = lines[top].chars().skip(5).collect();
    assert!(upper.first().is_some_and(|c| *c == ' '), "{text}");
    assert!(upper.last().is_some_and(|c| *c != ' '), "{text}");
    ui.key(Key::Char('z'), 1);
    let zoomed = draw(&f, &ui, 200, 60);
    assert!(zoomed.contains("last 5m"), "{zoomed}");
}

#[test]
fn filter_sort_and_selection_change_the_table() {
    let f = fixture(2);
    let mut ui = ui();
    for k in [Key::Char('/'), Key::Char('f'), Key::Char('f'), Key::Enter] {
        ui.key(k, 2);
    }
    let text = draw(&f, &ui, 80, 24);
    assert!(text.contains("/ff"), "{text}");
    assert!(
        !text.contains("train.py") && text.contains("ffmpeg"),
        "{text}"
    );
    ui.key(Key::Esc, 2);
    ui.key(Key::Down, 2);
    ui.key(Key::Enter, 2);
    let text = draw(&f, &ui, 80, 24);
    assert!(
        text.contains("GPU 1 only") && !text.contains(" 1000 ") && text.contains(" 1010 "),
        "{text}"
    );
    ui.key(Key::Char('?'), 2);
    let help = draw(&f, &ui, 80, 24);
    assert!(
        help.contains("nvq top: keys") && help.contains("refresh interval"),
        "{help}"
    );
    snapshot("help_80x24", &help);
}

/// The process table as ratatui's `Table` drew it before it was written
/// straight into the buffer: the reference for the test below.
fn table_as_ratatui_draws_it(
    s: &Screen<'_>,
    area: ratatui::layout::Rect,
    buf: &mut ratatui::buffer::Buffer,
    wide: bool,
) {
    use ratatui::style::{Color, Modifier, Style};
    use ratatui::text::{Line, Span};
    use ratatui::widgets::{Cell, Row, Table, Widget};
    let rows = view::shown_processes(s);
    let cols = view::table_columns(&rows, wide);
    let header = Row::new(cols.iter().map(|(i, c)| {
        let st = if *i == s.ui.sort {
            view::bold().add_modifier(Modifier::REVERSED)
        } else {
            view::bold()
        };
        let line = Line::from(Span::styled(c.head, st));
        Cell::from(if c.right { line.right_aligned() } else { line })
    }));
    let body = rows.iter().map(|r| {
        Row::new(cols.iter().map(|(_, c)| {
            let st = if r.leak.is_some() && matches!(c.id, ProcCol::Trend | ProcCol::GpuMem) {
                view::style(s, Color::Red).add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            let line = Line::from(Span::styled(
                nvq_core::render::printable(&c.text_of(r)).into_owned(),
                st,
            ));
            Cell::from(if c.right { line.right_aligned() } else { line })
        }))
    });
    Table::new(body, view::widths(&cols))
        .header(header)
        .column_spacing(1)
        .render(area, buf);
}

#[test]
fn the_process_table_is_what_ratatuis_table_draws() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    let mut fixtures = vec![fixture(8), fixture(2)];
    fixtures[1].leaks.insert(
        (Arc::default(), 0, 1000),
        Leak {
            rate: 100.0 * 1024.0 * 1024.0,
            gpu_full_s: Some(720.0),
        },
    );
    let mut hostile = fixture(1);
    let g = hostile.sample.gpus[0].clone();
    hostile.sample.procs = vec![
        proc_on(&g, 7, 9, "evil\x1b[2J\nsecond\u{301} line"),
        proc_on(&g, 4_000_000_000, 8, &"x".repeat(500)),
        proc_on(&g, 9, 7, "日本語のコマンド \u{fffd} wide"),
        proc_on(&g, 10, 6, "\u{202e}rtl \u{200b}"),
    ];
    hostile.sample.procs[1].gpu_mem = Some(u64::MAX);
    hostile.sample.procs[2].user = Some("ユーザー名が長い".into());
    fixtures.push(hostile);
    let mut compared = 0;
    for (n, f) in fixtures.iter().enumerate() {
        for colour in [false, true] {
            let mut ui = Ui::new(1000, colour);
            for sort in 0..3 {
                let screen = Screen {
                    sample: &f.sample,
                    history: &f.history,
                    leaks: &f.leaks,
                    gpu_full_s: &f.full,
                    ui: &ui,
                    title: "t",
                };
                for (w, h) in [(80, 12), (200, 30), (41, 3), (30, 1), (120, 6), (7, 4)] {
                    let area = Rect::new(2, 1, w, h);
                    let (mut ours, mut theirs) = (
                        Buffer::empty(Rect::new(0, 0, w + 4, h + 2)),
                        Buffer::empty(Rect::new(0, 0, w + 4, h + 2)),
                    );
                    view::process_table(&screen, area, &mut ours, w >= 120);
                    table_as_ratatui_draws_it(&screen, area, &mut theirs, w >= 120);
                    assert_eq!(ours, theirs, "fixture {n}, sort {sort}, {w}x{h}");
                    compared += 1;
                }
                ui.key(Key::Char('s'), f.sample.gpus.len());
                let _ = sort;
            }
        }
    }
    assert_eq!(compared, 3 * 2 * 3 * 6);
}

#[test]
fn clicks_hit_the_gpu_lines_and_column_headers_drawn() {
    use ratatui::layout::Rect;
    let f = fixture(8);
    let mut ui = ui();
    type Hits = (Option<view::Hit>, Option<view::Hit>, Option<view::Hit>);
    let shown = |ui: &Ui| -> (String, Hits) {
        let screen = screen_of(&f, ui);
        let text = draw(&f, ui, 80, 24);
        let lines: Vec<&str> = text.lines().collect();
        let area = Rect::new(0, 0, 80, 24);
        let gpu3 = lines.iter().position(|l| l.contains(" 3 H100")).unwrap() as u16;
        let head = lines.iter().position(|l| l.contains(" PID ")).unwrap();
        let sm_x = lines[head].find("SM%").unwrap() as u16 + 1;
        let hits = (
            view::hit(&screen, area, 5, gpu3),
            view::hit(&screen, area, sm_x, head as u16),
            view::hit(&screen, area, 0, 0),
        );
        (text, hits)
    };
    let (_, (gpu, column, header_line)) = shown(&ui);
    let sm = super::columns::COLUMNS
        .iter()
        .position(|c| c.id == ProcCol::Sm)
        .unwrap();
    assert_eq!(gpu, Some(view::Hit::Gpu(3)));
    assert_eq!(column, Some(view::Hit::Column(sm)));
    assert_eq!(header_line, None, "the title line is not a GPU");
    ui.click_gpu(3);
    ui.click_column(sm);
    let (text, ..) = shown(&ui);
    assert!(
        text.contains("GPU 3 only") && text.contains("sort SM%↓"),
        "{text}"
    );
    assert!(
        !text.contains(" 1000 ") && text.contains(" 1030 "),
        "{text}"
    );
    // The wheel: every GPU's 16 processes do not fit 80×24; the table scrolls.
    ui.click_gpu(3);
    let first_row = |text: &str| {
        let lines: Vec<&str> = text.lines().collect();
        let head = lines.iter().position(|l| l.contains(" PID ")).unwrap();
        lines[head + 1].to_string()
    };
    let (before, ..) = shown(&ui);
    ui.wheel(true, 16);
    let (after, ..) = shown(&ui);
    assert_ne!(first_row(&before), first_row(&after), "{after}");
    snapshot("scrolled_80x24", &after);
}

/// A frame drawn over the last one (`view::render_over` through
/// `Frames::draw_over`, as `nvq top` draws one after a sample) shows what
/// the frame drawn whole shows, and writes the same cells: random samples
/// in turn, in which a few GPUs' values, health, MIG devices or names
/// change, processes come and go, and the number of GPUs changes now and
/// then; each sample adds to the history as `nvq top` records it, the clock
/// moves on by a tenth of a second or jumps (now and then back); for
/// several sizes, history lengths and choices (a selected GPU, the list
/// scrolled, no colour). Most frames keep some rows, and many keep the
/// curves but their last column, so the test covers those paths.
#[test]
fn a_frame_drawn_over_the_last_is_the_frame_drawn_whole() {
    let mut rand = super::seeded();
    let (mut kept_frames, mut kept_curves) = (0, 0);
    // Size, GPUs, the one selected, colour, points kept per series (the
    // fixture has 600 a GPU; fewer: the oldest go within the curves' span;
    // none: the fixture's history left out, series begin with the test).
    for (w, h, n, selected, colour, cap) in [
        (80, 24, 8, 0, true, 6000),
        (120, 40, 8, 3, true, 6000),
        (200, 60, 12, 7, false, 620),
        (80, 24, 64, 40, true, 6000),
        (100, 30, 2, 1, true, 50),
        (120, 40, 3, 0, true, 630),
        (120, 40, 2, 1, true, 0),
    ] {
        let mut f = fixture(n);
        let mut history = History::new(if cap == 0 { 6000 } else { cap });
        for (key, field) in f.history.keys().filter(|_| cap > 0) {
            for p in f.history.series(key.as_ref(), field).unwrap().points() {
                history.push(key.as_ref(), field, p);
            }
        }
        f.history = history;
        let mut ui = Ui::new(100, colour);
        for _ in 0..selected {
            ui.key(Key::Down, n as usize);
        }
        let mut whole = crate::tui::term::Frames::new(TestBackend::new(w, h)).unwrap();
        let mut over = crate::tui::term::Frames::new(TestBackend::new(w, h)).unwrap();
        // The sample and the marks the last frame showed.
        type Shown = (TopSample, LeakMap, FullMap);
        let mut before: Option<Shown> = None;
        for step in 0..60 {
            let screen = screen_of(&f, &ui);
            whole
                .draw(|area, buf| view::render(&screen, area, buf))
                .unwrap();
            let mut kept = 0;
            match before.as_ref() {
                Some((sample, leaks, full)) if over.holds_last_frame() => {
                    over.draw_over(|area, buf| {
                        let old = view::Before {
                            sample,
                            leaks,
                            gpu_full_s: full,
                        };
                        let rows = view::render_over(&screen, &old, area, buf);
                        kept = rows.len();
                        let curves = view::regions(&screen, area).curves;
                        kept_curves += usize::from(rows.iter().any(|r| r.intersects(curves)));
                        rows
                    })
                }
                _ => over.draw(|area, buf| view::render(&screen, area, buf)),
            }
            .unwrap();
            assert_eq!(
                whole.backend().buffer(),
                over.backend().buffer(),
                "{w}x{h}, {n} GPUs, step {step}"
            );
            kept_frames += usize::from(kept > 0);
            before = Some((f.sample.clone(), f.leaks.clone(), f.full.clone()));
            // A GPU's time to full memory shown, or no longer.
            if rand(6) == 0 {
                let g = &f.sample.gpus[rand(f.sample.gpus.len() as u64) as usize];
                let index = (g.host.clone(), g.index);
                if f.full.remove(&index).is_none() {
                    f.full.insert(index, (1 + rand(3600)) as f64);
                }
            }
            // A process marked as leaking, or no longer.
            if rand(5) == 0 {
                if let Some(p) = f
                    .sample
                    .procs
                    .get(rand(f.sample.procs.len() as u64) as usize)
                {
                    let key = (p.host.clone(), p.gpu, p.pid);
                    if f.leaks.remove(&key).is_none() {
                        let rate = (1 + rand(100)) as f64 * 1e6;
                        f.leaks.insert(
                            key,
                            Leak {
                                rate,
                                gpu_full_s: Some(600.0),
                            },
                        );
                    }
                }
            }
            // A process's values change.
            if rand(2) == 0 {
                let n = f.sample.procs.len() as u64;
                if let Some(p) = f.sample.procs.get_mut(rand(n) as usize) {
                    p.gpu_mem = Some(rand(40) * GIB);
                    p.sm = Some(rand(100) as f64);
                }
            }
            // The next sample: a few GPUs change.
            let count = f.sample.gpus.len() as u64;
            for _ in 0..rand(3) {
                let i = rand(count) as usize;
                let g = &mut f.sample.gpus[i];
                match rand(8) {
                    0 => g.health = Health::Late,
                    1 => g.health = Health::Lost(NvmlCode::GPU_IS_LOST),
                    2 => g.health = Health::Fresh,
                    // Wide characters too: the symbols kept aside by the comparison.
                    3 => {
                        g.name = format!(
                            "NVIDIA H{} {}",
                            rand(1000),
                            ["", "日本", "x\u{301}"][rand(3) as usize]
                        )
                        .into()
                    }
                    4 => {
                        g.mig = (0..rand(3))
                            .map(|m| MigSnap {
                                profile: "1g.10gb".into(),
                                uuid: format!("MIG-{m}").into(),
                                gpu_instance: Some(m as u32),
                                compute_instance: Some(0),
                                mem_used: Some(rand(10) * GIB),
                                mem_total: Some(10 * GIB),
                            })
                            .collect()
                    }
                    // What only the detail line shows.
                    5 => {
                        g.clock_sm_mhz = Some(rand(2000) as f64);
                        g.fan_pct = [None, Some(rand(100) as f64)][rand(2) as usize];
                        g.pcie_tx = Some(rand(1000) as f64 * 1e6);
                    }
                    _ => {
                        g.mem_used = Some(rand(80) * GIB);
                        g.util_gpu = Some(rand(101) as f64);
                        g.power_w = Some(rand(700) as f64);
                    }
                }
            }
            if rand(4) == 0 {
                let g = f.sample.gpus[rand(count) as usize].clone();
                let pid = 5000 + rand(50) as u32;
                f.sample.procs.retain(|p| p.pid != pid);
                if rand(2) == 0 {
                    f.sample
                        .procs
                        .push(proc_on(&g, pid, rand(20), "python3 x.py"));
                }
            }
            if rand(20) == 0 && count > 1 {
                f.sample.gpus.pop();
            }
            // The selected GPU: another total, late, or back.
            let i = ui.selected.min(f.sample.gpus.len() - 1);
            match rand(30) {
                0 => f.sample.gpus[i].mem_total = Some((80 + rand(2)) * GIB),
                1..=3 => f.sample.gpus[i].health = Health::Late,
                4..=6 => f.sample.gpus[i].health = Health::Fresh,
                _ => {}
            }
            // Mostly the next tick; now and then a jump of up to a minute,
            // forward or back (a clock set back), or of more than the
            // curves' span, forward then back.
            f.sample.t += match rand(12) {
                0 => rand(600) as f64 / 10.0,
                1 => -(rand(100) as f64) / 10.0,
                2 if f.sample.t > T0 + 500.0 => -700.0,
                2 => 700.0,
                _ => 0.1,
            };
            // The history, as `nvq top` records a sample.
            for g in f.sample.gpus.iter().filter(|g| g.health == Health::Fresh) {
                let key = SeriesKey::Gpu {
                    uuid: g.uuid.to_string(),
                };
                let t = f.sample.t;
                for (field, v) in [
                    (MEM_FIELD, g.mem_used.map(|v| v as f64)),
                    (UTIL_FIELD, g.util_gpu),
                ] {
                    if let Some(v) = v {
                        f.history.push(&key, field, Point { t, v });
                    }
                }
            }
        }
    }
    assert!(kept_frames >= 150, "{kept_frames}");
    assert!(kept_curves >= 60, "{kept_curves}");
}

/// `nvq top --hosts`: three nodes of two GPUs each, the first answering,
/// the second late (its GPUs as last read), the third failed with a
/// hostile reason; the curves kept by host and UUID (the nodes report the
/// same UUIDs).
fn hosts_fixture() -> Fixture {
    use nvq_core::model::top::{HostSnap, HostState};
    let base = fixture(2);
    let names = ["gpu-a:9835", "gpu-b:9835", "gpu-c:9835"];
    let mut gpus = Vec::new();
    let mut procs = Vec::new();
    let mut history = History::new(6000);
    for (h, name) in names.iter().enumerate().take(2) {
        for g in &base.sample.gpus {
            let mut g = g.clone();
            g.host = Arc::from(*name);
            if h == 1 {
                g = GpuSnap::unknown(g.index, g.uuid, g.name, Health::Late);
                g.host = Arc::from(*name);
            } else {
                for p in base.sample.procs.iter().filter(|p| p.gpu == g.index) {
                    let mut p = p.clone();
                    p.host = g.host.clone();
                    p.cpu_pct = None;
                    p.host_mem = None;
                    p.container = None;
                    p.sm = None;
                    procs.push(p);
                }
            }
            let old = SeriesKey::Gpu {
                uuid: g.uuid.to_string(),
            };
            let key = SeriesKey::Gpu {
                uuid: g.series_id().into_owned(),
            };
            for field in [MEM_FIELD, UTIL_FIELD] {
                for p in base.history.series(&old, field).unwrap().points() {
                    history.push(&key, field, p);
                }
            }
            gpus.push(g);
        }
    }
    let states = [
        HostState::Reachable,
        HostState::Late,
        HostState::Failed(Arc::from(
            "answered HTTP 500: \u{1b}[2J\u{1b}]0;pwned\u{7}\u{202e}evil\nsecond line",
        )),
    ];
    let hosts = names
        .iter()
        .zip(states)
        .map(|(n, state)| HostSnap {
            name: Arc::from(*n),
            state,
            lacks: None,
        })
        .collect();
    Fixture {
        sample: TopSample {
            t: T0,
            gpus,
            procs,
            hosts,
        },
        history,
        leaks: HashMap::new(),
        full: HashMap::new(),
    }
}

#[test]
fn hosts_group_their_gpus_under_a_header_each() {
    check_both_sizes(&hosts_fixture(), "hosts", |text, _| {
        let lines: Vec<&str> = text.lines().collect();
        let at = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap();
        assert!(lines[0].contains("4 GPUs on 1/3 hosts"), "{text}");
        let (a, b, c) = (
            at("gpu-a:9835  reachable, 2 GPUs"),
            at("gpu-b:9835  late"),
            at("gpu-c:9835  failed"),
        );
        assert!(a < b && b < c, "{text}");
        // Each node's GPUs under its header; the late node's named, late.
        assert!(
            lines[a + 1].contains("0 H100") && lines[a + 2].contains("1 H100"),
            "{text}"
        );
        assert!(
            lines[b + 1].contains("0 H100") && lines[b + 1].contains("late"),
            "{text}"
        );
        // The hostile reason is one line of printable text.
        assert!(lines[c].contains("answered HTTP 500:"), "{text}");
        assert!(!lines[c + 1].contains("second line"), "{text}");
        // The processes have their host, first.
        let head = lines.iter().find(|l| l.contains("PID")).unwrap();
        assert!(head.trim_start().starts_with("HOST"), "{text}");
        assert!(
            text.lines()
                .any(|l| l.starts_with("gpu-a:9835") && l.contains("python3")),
            "{text}"
        );
        // The selected GPU's curves are its own node's.
        assert!(text.contains("gpu-a:9835 GPU 0"), "{text}");
    });
}

#[test]
fn a_gpu_of_a_host_is_told_apart_from_another_hosts_gpu_of_the_same_index() {
    let mut f = hosts_fixture();
    // The late node answers again, with processes of its own.
    f.sample.hosts[1].state = nvq_core::model::top::HostState::Reachable;
    let answering: Vec<GpuSnap> = f.sample.gpus[..2]
        .iter()
        .map(|g| GpuSnap {
            host: Arc::from("gpu-b:9835"),
            ..g.clone()
        })
        .collect();
    f.sample.gpus.splice(2..4, answering);
    let mut p = f.sample.procs[0].clone();
    p.host = Arc::from("gpu-b:9835");
    p.pid = 7777;
    f.sample.procs.push(p);
    f.leaks.insert(
        (Arc::from("gpu-b:9835"), 0, 7777),
        Leak {
            rate: 100.0 * 1024.0 * 1024.0,
            gpu_full_s: Some(720.0),
        },
    );
    f.full.insert((Arc::from("gpu-b:9835"), 0), 720.0);
    let mut ui = ui();
    // Show only the selected GPU's processes: gpu-a's GPU 0 first.
    ui.key(Key::Enter, f.sample.gpus.len());
    let text = draw(&f, &ui, 120, 40);
    assert!(text.contains("gpu-a:9835 GPU 0 only"), "{text}");
    assert!(!text.contains("7777"), "{text}");
    assert!(!text.contains("memory full"), "{text}");
    // gpu-b's GPU 0: its own process, leak and time to full.
    ui.key(Key::Down, f.sample.gpus.len());
    ui.key(Key::Down, f.sample.gpus.len());
    let text = draw(&f, &ui, 120, 40);
    assert!(text.contains("gpu-b:9835 GPU 0 only"), "{text}");
    let row = text.lines().find(|l| l.contains(" 7777 ")).unwrap();
    assert!(row.contains("▲+100M/s"), "{text}");
    assert!(!text.contains(" 1000 "), "{text}");
    assert!(text.contains("memory full in 12m"), "{text}");
}

#[test]
fn a_hosts_frame_drawn_over_the_last_is_the_frame_drawn_whole() {
    let mut f = hosts_fixture();
    let ui = ui();
    let mut whole = crate::tui::term::Frames::new(TestBackend::new(200, 60)).unwrap();
    let mut over = crate::tui::term::Frames::new(TestBackend::new(200, 60)).unwrap();
    let screen = screen_of(&f, &ui);
    over.draw(|area, buf| view::render(&screen, area, buf))
        .unwrap();
    let before = f.sample.clone();
    // The failed node answers late now, the late one fails.
    f.sample.hosts[2].state = nvq_core::model::top::HostState::Late;
    f.sample.hosts[1].state = nvq_core::model::top::HostState::Failed(Arc::from("refused"));
    let screen = screen_of(&f, &ui);
    whole
        .draw(|area, buf| view::render(&screen, area, buf))
        .unwrap();
    over.draw_over(|area, buf| {
        let old = view::Before {
            sample: &before,
            leaks: &f.leaks,
            gpu_full_s: &f.full,
        };
        view::render_over(&screen, &old, area, buf)
    })
    .unwrap();
    assert_eq!(whole.backend().buffer(), over.backend().buffer());
    let text = super::buffer_text(over.backend().buffer());
    assert!(text.contains("gpu-b:9835  failed: refused"), "{text}");
    assert!(text.contains("gpu-c:9835  late"), "{text}");
}
