//! The screen's loop: the threads that wait for keys, signals and job
//! control, the schedule of samples, and the state ([`Loop`]) that the UI
//! thread and the lanes share under one lock (see the module `top`).

use super::collector::{Collector, Source};
use super::marks::{leaks, record, HISTORY_CAP};
use super::options::Plan;
use crate::schedule::alarm::Alarm;
use crate::schedule::deadline::{self, lock};
use crate::schedule::signals::{StopSignals, Wake};
use crate::tui::state::{Action, Ui};
use crate::tui::term::{self, Input, Mouse};
use crate::tui::view::{self, FullMap, Hit, LeakMap, Screen, MEM_FIELD, PROC_MEM_FIELD};
use nvq_core::error::NvqError;
use nvq_core::model::history::History;
use nvq_core::model::top::TopSample;
use nvq_core::model::trend::TrendConfig;
use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the leak marks are worked out again.
const TREND_EVERY: Duration = Duration::from_secs(1);

/// The screen's state, shared by the UI thread (keys, signals, the alarm)
/// and the lanes (a sample is in). `None` before the screen is set up and
/// once it is put away.
type Shared = Arc<Mutex<Option<Loop>>>;

/// The screen until a quit: the lanes started, each handling the samples
/// it finishes, and the UI thread answering keys, signals and the alarm.
pub(super) fn run(plan: &Plan, source: &Source, title: String) -> Result<(), NvqError> {
    let (tx, rx) = mpsc::channel::<Msg>();
    let ring = tx.clone();
    let alarm = Alarm::start(move || {
        let _ = ring.send(Msg::Alarm);
    })
    .map_err(|e| NvqError::Start(format!("top: cannot start a timer: {e}")))?;
    let shared: Shared = Arc::new(Mutex::new(None));
    let notify: deadline::Notify = {
        let (shared, tx) = (Arc::clone(&shared), tx.clone());
        // A lane has run out of a sample's work: the sample is handled here,
        // on the lane, which then begins the next (see the module's text).
        Arc::new(move || {
            let mut held = lock(&shared);
            let Some(l) = held.as_mut() else { return };
            if let Err(e) = l.handle(None) {
                l.failed = Some(e);
                let _ = tx.send(Msg::Stop);
            }
        })
    };
    let collector = Collector::start(source, plan.interval_ms, Some(notify))?;
    interactive(plan, collector, title, (tx, rx), &shared, alarm)
}

/// What reaches the UI thread.
enum Msg {
    /// The alarm: the sample in progress has come to its halfway point or
    /// its deadline without every lane having answered.
    Alarm,
    Input(Input),
    Stop,
    /// SIGTSTP: put the terminal back and stop.
    Suspend,
    /// SIGCONT: take the terminal again (if it was put back) and draw the
    /// whole screen.
    Continued,
}

fn interactive(
    plan: &Plan,
    collector: Collector,
    title: String,
    (tx, rx): (Sender<Msg>, Receiver<Msg>),
    shared: &Shared,
    alarm: Arc<Alarm>,
) -> Result<(), NvqError> {
    let signals = StopSignals::install();
    let colour = crate::output::terminal::stdout_colour(false);
    term::install_panic_hook();
    let terminal = term::Terminal::enter().map_err(|e| {
        NvqError::Terminal(format!(
            "top: cannot use this terminal ({e}); try `nvq top --once`."
        ))
    })?;
    let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(f)
            .map(|_| ())
            .map_err(|e| NvqError::Start(format!("top: cannot start a thread: {e}")))
    };
    {
        let tx = tx.clone();
        spawn(
            "nvq-top-input",
            Box::new(move || loop {
                let input = term::next_input();
                let closed = matches!(input, Input::Closed);
                if tx.send(Msg::Input(input)).is_err() || closed {
                    break;
                }
            }),
        )?;
    }
    {
        let tx = tx.clone();
        spawn(
            "nvq-top-signals",
            Box::new(move || {
                let far = Instant::now() + Duration::from_secs(86400 * 365);
                loop {
                    if let Wake::Signal = signals.sleep_until(far, None) {
                        let _ = tx.send(Msg::Stop);
                        break;
                    }
                }
            }),
        )?;
    }
    // Without these handlers SIGTSTP would stop nvq top on the alternate
    // screen, in raw mode, with mouse reporting on.
    if let Ok(mut job) = signal_hook::iterator::Signals::new([libc::SIGTSTP, libc::SIGCONT]) {
        spawn(
            "nvq-top-job",
            Box::new(move || {
                for sig in job.forever() {
                    let msg = if sig == libc::SIGTSTP {
                        Msg::Suspend
                    } else {
                        Msg::Continued
                    };
                    if tx.send(msg).is_err() {
                        break;
                    }
                }
            }),
        )?;
    }
    *lock(shared) = Some(Loop::new(
        plan,
        collector,
        terminal,
        colour,
        title,
        Arc::clone(&alarm),
    ));
    let result = ui_loop(shared, &rx);
    // Put the screen away (the terminal as it was) here, whatever the end:
    // a lane that comes later finds nothing to draw on. The lanes' closure
    // holds `shared`, so the state would otherwise never be dropped.
    alarm.set(None);
    let state = lock(shared).take();
    drop(state);
    result
}

/// When to sample: every interval from the first tick; a pause stops it.
/// Each sample is begun as soon as the one before is over, to start on its
/// tick: the lanes then wake on their own timer.
struct Schedule {
    /// The tick of the next sample to begin.
    next: Instant,
    /// The sample in progress: its time (seconds since the epoch).
    begun: Option<f64>,
}

impl Schedule {
    /// What to wait for: the sample in progress, or the next tick.
    fn wake_at(&self, c: &Collector, paused: bool) -> Option<Instant> {
        match self.begun {
            Some(_) => c.wake_at(),
            None if paused => None,
            None => Some(self.next),
        }
    }

    /// Take the sample in progress if it is over, and begin the next one.
    fn step(&mut self, c: &mut Collector, interval_ms: u64, paused: bool) -> Option<TopSample> {
        let interval = Duration::from_millis(interval_ms);
        let mut done = None;
        if let Some(t) = self.begun {
            done = c.poll(t);
            if done.is_some() {
                self.begun = None;
            }
        }
        if self.begun.is_none() && !paused {
            // A hung GPU can push a sample past its tick: skip missed ticks.
            let now = Instant::now();
            while self.next + interval <= now {
                self.next += interval;
            }
            let tick = self.next.max(now);
            self.next = tick + interval;
            self.begun = Some(c.begin(tick, tick + deadline::limit_for(interval), self.next));
        }
        done
    }

    /// A new interval or the end of a pause: the next sample now.
    fn restart(&mut self, c: &mut Collector, interval_ms: u64) {
        let interval = Duration::from_millis(interval_ms);
        let now = Instant::now();
        self.next = now;
        if self.begun.is_some() {
            let moved = c.reschedule(now, now + deadline::limit_for(interval), now + interval);
            if let Some(t) = moved {
                self.begun = Some(t);
                self.next = now + interval;
            }
        }
    }
}

/// The screen's state between samples and keys.
struct Loop {
    collector: Collector,
    terminal: term::Terminal,
    title: String,
    ui: Ui,
    trend_cfg: TrendConfig,
    history: History,
    sample: TopSample,
    leak_map: LeakMap,
    full_map: FullMap,
    last_trend: Option<Instant>,
    schedule: Schedule,
    /// Set, after each message or sample, to [`Loop::wake_at`].
    alarm: Arc<Alarm>,
    /// Why a lane could not handle its sample (the UI thread returns it).
    failed: Option<NvqError>,
}

/// What a frame shows, as one `Screen` of a [`Loop`]'s fields (a macro:
/// the fields are borrowed only while the screen is used).
macro_rules! screen {
    ($l:expr) => {
        Screen {
            sample: &$l.sample,
            history: &$l.history,
            leaks: &$l.leak_map,
            gpu_full_s: &$l.full_map,
            ui: &$l.ui,
            title: &$l.title,
        }
    };
}

fn draw_err(e: std::io::Error) -> NvqError {
    NvqError::Terminal(format!("top: cannot draw: {e}"))
}

impl Loop {
    fn new(
        plan: &Plan,
        collector: Collector,
        terminal: term::Terminal,
        colour: bool,
        title: String,
        alarm: Arc<Alarm>,
    ) -> Loop {
        let mut history = History::new(HISTORY_CAP);
        // The leak marks read these series' trends once a second.
        history.keep_minima_of(MEM_FIELD);
        history.keep_minima_of(PROC_MEM_FIELD);
        Loop {
            collector,
            terminal,
            title,
            ui: Ui::new(plan.interval_ms, colour),
            trend_cfg: plan.trend(),
            history,
            sample: TopSample::default(),
            leak_map: HashMap::new(),
            full_map: HashMap::new(),
            last_trend: None,
            schedule: Schedule {
                next: Instant::now(),
                begun: None,
            },
            alarm,
            failed: None,
        }
    }

    /// Put the terminal back, stop as SIGTSTP does (`group`: the process
    /// group, as the terminal's Ctrl+Z), and once continued take the
    /// terminal again; the caller draws the whole screen. The lanes wait
    /// meanwhile: this runs under the state's lock.
    fn suspend(&mut self, group: bool) -> Result<(), NvqError> {
        self.terminal.leave();
        crate::schedule::signals::stop_as_sigtstp(group);
        self.terminal.take_again().map_err(draw_err)
    }

    /// When the alarm must go off: the sample in progress's checkpoint, or
    /// the next tick.
    fn wake_at(&self) -> Option<Instant> {
        self.schedule.wake_at(&self.collector, self.ui.paused)
    }

    /// Handle `msg` (`None`: a lane ran out of work, or the first time
    /// round), take the sample in progress if it is over and begin the next,
    /// draw if something shown changed, and set the alarm to what is waited
    /// for next. Returns whether to quit.
    fn handle(&mut self, msg: Option<Msg>) -> Result<bool, NvqError> {
        let mut dirty = false;
        match msg {
            None | Some(Msg::Alarm) => {}
            Some(Msg::Input(Input::Key(k))) => {
                test_panic_on_key();
                match self.ui.key(k, self.sample.gpus.len()) {
                    Action::Quit => return Ok(true),
                    Action::Suspend => {
                        self.suspend(true)?;
                        dirty = true;
                    }
                    Action::Collector => {
                        // A new interval or a pause: the next tick is now.
                        self.collector.set_interval(self.ui.interval_ms);
                        self.schedule
                            .restart(&mut self.collector, self.ui.interval_ms);
                        dirty = true;
                    }
                    Action::Redraw => dirty = true,
                    Action::None => {}
                }
            }
            Some(Msg::Input(Input::Mouse(m))) => {
                let area = self.terminal.tui.area();
                let screen = screen!(self);
                let (hit, more) = match m {
                    Mouse::Click { x, y } => (view::hit(&screen, area, x, y), 0),
                    _ => (None, {
                        let rows = view::shown_processes(&screen).len();
                        rows.saturating_sub(view::process_rows(&screen, area))
                    }),
                };
                let action = match (m, hit) {
                    (Mouse::Click { .. }, Some(Hit::Gpu(i))) => self.ui.click_gpu(i),
                    (Mouse::Click { .. }, Some(Hit::Column(c))) => self.ui.click_column(c),
                    (Mouse::WheelDown, _) => self.ui.wheel(true, more),
                    (Mouse::WheelUp, _) => self.ui.wheel(false, more),
                    _ => Action::None,
                };
                dirty = action != Action::None;
            }
            Some(Msg::Input(Input::Resize)) => {
                self.terminal.tui.autoresize().map_err(draw_err)?;
                dirty = true;
            }
            Some(Msg::Input(Input::Closed) | Msg::Stop) => return Ok(true),
            Some(Msg::Suspend) => {
                self.suspend(false)?;
                dirty = true;
            }
            Some(Msg::Continued) => {
                self.terminal.take_again().map_err(draw_err)?;
                dirty = true;
            }
        }
        // Take the sample in progress if it is over, begin the next on its
        // tick (after the keys: a pause or a new interval counts at once).
        let (interval_ms, paused) = (self.ui.interval_ms, self.ui.paused);
        // A frame after keys, the mouse or a resize is drawn whole; one after
        // a sample, over the last (what is the same is kept).
        let whole = dirty;
        let (mut before, mut old_marks) = (None, None);
        if let Some(s) = self.schedule.step(&mut self.collector, interval_ms, paused) {
            if !paused {
                record(&mut self.history, &s);
                // Redraw only what would look different: other values,
                // other marks, or curves that moved by a column (when a new
                // column of time begins).
                let now = Screen {
                    sample: &s,
                    ..screen!(self)
                };
                let moved = view::curves_moved(&now, self.terminal.tui.area(), self.sample.t);
                dirty |= s.gpus != self.sample.gpus
                    || s.procs != self.sample.procs
                    || s.hosts != self.sample.hosts
                    || moved;
                if self.last_trend.map_or(true, |t| t.elapsed() >= TREND_EVERY) {
                    let (l, f) = leaks(&self.history, &s, &self.trend_cfg);
                    if l != self.leak_map || f != self.full_map {
                        dirty = true;
                        let l = std::mem::replace(&mut self.leak_map, l);
                        old_marks = Some((l, std::mem::replace(&mut self.full_map, f)));
                    }
                    self.last_trend = Some(Instant::now());
                }
                let old = std::mem::replace(&mut self.sample, s);
                self.ui.follow(&old.gpus, &self.sample.gpus);
                before = Some(old);
            }
        }
        if dirty {
            let screen = screen!(self);
            let tui = &mut self.terminal.tui;
            let (leaks, gpu_full_s) = old_marks
                .as_ref()
                .map_or((screen.leaks, screen.gpu_full_s), |(l, f)| (l, f));
            match before.as_ref() {
                Some(sample) if !whole && tui.holds_last_frame() => {
                    let old = view::Before {
                        sample,
                        leaks,
                        gpu_full_s,
                    };
                    tui.draw_over(|area, buf| view::render_over(&screen, &old, area, buf))
                }
                _ => tui.draw(|area, buf| view::render(&screen, area, buf)),
            }
            .map_err(draw_err)?;
        }
        self.alarm.set(self.wake_at());
        Ok(false)
    }
}

/// The UI thread: the first sample, then keys, signals and the alarm, each
/// handled under the state's lock, until a quit.
fn ui_loop(shared: &Shared, rx: &Receiver<Msg>) -> Result<(), NvqError> {
    let mut msg: Option<Msg> = None;
    loop {
        let mut held = lock(shared);
        let Some(l) = held.as_mut() else {
            return Ok(());
        };
        if let Some(e) = l.failed.take() {
            return Err(e);
        }
        if l.handle(msg)? {
            return Ok(());
        }
        drop(held);
        // Sleep until a key, a signal or the alarm (a lane handles its
        // sample itself).
        msg = Some(rx.recv().unwrap_or(Msg::Stop));
    }
}

/// Debug and test builds only: with `NVQ_TEST_TOP_PANIC=key`, the first
/// key panics, so that `tests/top.rs` can check that a panic puts the
/// terminal back. Release builds have no such switch.
#[cfg(debug_assertions)]
#[allow(clippy::panic)]
fn test_panic_on_key() {
    if std::env::var_os("NVQ_TEST_TOP_PANIC").is_some_and(|v| v == "key") {
        panic!("NVQ_TEST_TOP_PANIC: a panic on a key, as asked");
    }
}

#[cfg(not(debug_assertions))]
fn test_panic_on_key() {}
