//! What the person at the keyboard chose: sort column and order, filter,
//! pause, refresh interval, selected GPU, curve zoom, help. Keys change it;
//! pure code, tested below.

use super::columns::{ProcCol, ProcColumn, COLUMNS};
use nvq_core::model::top::GpuSnap;

/// A key, as `top` understands it (the terminal layer maps its events).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Up,
    Down,
    Left,
    Right,
    Enter,
    Esc,
    Backspace,
    CtrlC,
    /// Ctrl+Z: suspend (raw mode keeps the terminal from sending SIGTSTP).
    CtrlZ,
    /// A function key (F2: the next refresh interval, as nvtop users expect).
    F(u8),
}

/// What the runner does after a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing changed.
    None,
    /// The screen changed: draw it again.
    Redraw,
    /// The refresh interval or pause changed: tell the collector, redraw.
    Collector,
    /// Put the terminal back and stop, as Ctrl+Z does in a shell; draw the
    /// whole screen again once continued.
    Suspend,
    Quit,
}

/// The refresh intervals `+`/`-` step through, in milliseconds.
pub const INTERVALS_MS: [u64; 9] = [100, 200, 250, 500, 1000, 2000, 3000, 5000, 10000];

/// The shortest and longest refresh interval, in milliseconds.
pub const MIN_INTERVAL_MS: u64 = 100;
pub const MAX_INTERVAL_MS: u64 = 10_000;

/// How much time the curves show, in seconds (`z` zooms in, `Z` out).
pub const ZOOMS_S: [u64; 7] = [30, 60, 120, 300, 600, 1800, 3600];

/// Process rows one step of the mouse wheel scrolls.
pub const WHEEL_ROWS: usize = 3;

/// The zoom a run starts with: ten minutes.
pub const DEFAULT_ZOOM: usize = 4;

#[derive(Clone, Debug, PartialEq)]
pub struct Ui {
    /// Index into [`COLUMNS`].
    pub sort: usize,
    pub descending: bool,
    pub filter: String,
    /// The filter line is being typed.
    pub editing: bool,
    pub paused: bool,
    pub interval_ms: u64,
    /// The selected GPU: a position in the sample's GPU list.
    pub selected: usize,
    /// Show only the selected GPU's processes.
    pub only_selected: bool,
    /// Index into [`ZOOMS_S`].
    pub zoom: usize,
    pub help: bool,
    /// The first process row shown (the mouse wheel scrolls the table).
    pub scroll: usize,
    /// Colours allowed (not `NO_COLOR`, a terminal that has them).
    pub colour: bool,
}

impl Ui {
    pub fn new(interval_ms: u64, colour: bool) -> Self {
        Ui {
            sort: COLUMNS
                .iter()
                .position(|c| c.id == ProcCol::GpuMem)
                .unwrap_or(0),
            descending: true,
            filter: String::new(),
            editing: false,
            paused: false,
            interval_ms: interval_ms.clamp(MIN_INTERVAL_MS, MAX_INTERVAL_MS),
            selected: 0,
            only_selected: false,
            zoom: DEFAULT_ZOOM,
            help: false,
            scroll: 0,
            colour,
        }
    }

    pub fn sort_column(&self) -> &'static ProcColumn {
        &COLUMNS[self.sort.min(COLUMNS.len() - 1)]
    }

    /// The curves' time span, in seconds.
    pub fn zoom_s(&self) -> u64 {
        ZOOMS_S[self.zoom.min(ZOOMS_S.len() - 1)]
    }

    /// Apply a key; `gpus` is how many GPUs the sample shows.
    pub fn key(&mut self, key: Key, gpus: usize) -> Action {
        if key == Key::CtrlC {
            return Action::Quit;
        }
        if key == Key::CtrlZ {
            return Action::Suspend;
        }
        if self.editing {
            return self.edit(key);
        }
        if self.help {
            // Any key closes the help; q still quits.
            self.help = false;
            return if key == Key::Char('q') {
                Action::Quit
            } else {
                Action::Redraw
            };
        }
        match key {
            Key::Char('q') => Action::Quit,
            Key::Char('h') | Key::Char('?') => {
                self.help = true;
                Action::Redraw
            }
            Key::Char('/') | Key::Char('f') => {
                self.editing = true;
                Action::Redraw
            }
            Key::Char('s') | Key::Char('>') | Key::Right => {
                self.sort = (self.sort + 1) % COLUMNS.len();
                self.descending = COLUMNS[self.sort].numeric;
                Action::Redraw
            }
            Key::Char('<') | Key::Left => {
                self.sort = (self.sort + COLUMNS.len() - 1) % COLUMNS.len();
                self.descending = COLUMNS[self.sort].numeric;
                Action::Redraw
            }
            Key::Char('r') => {
                self.descending = !self.descending;
                Action::Redraw
            }
            Key::Char('p') | Key::Char(' ') => {
                self.paused = !self.paused;
                Action::Collector
            }
            Key::Char('+') | Key::Char('=') | Key::F(2) => {
                self.step_interval(true, key == Key::F(2))
            }
            Key::Char('-') | Key::Char('_') => self.step_interval(false, false),
            Key::Char('z') => {
                self.zoom = self.zoom.saturating_sub(1);
                Action::Redraw
            }
            Key::Char('Z') => {
                self.zoom = (self.zoom + 1).min(ZOOMS_S.len() - 1);
                Action::Redraw
            }
            Key::Up | Key::Char('k') => {
                self.selected = self.selected.saturating_sub(1);
                Action::Redraw
            }
            Key::Down | Key::Char('j') => {
                self.selected = (self.selected + 1).min(gpus.saturating_sub(1));
                Action::Redraw
            }
            Key::Enter => {
                self.only_selected = !self.only_selected;
                Action::Redraw
            }
            Key::Char('a') | Key::Esc => {
                let changed = self.only_selected || !self.filter.is_empty();
                self.only_selected = false;
                self.filter.clear();
                if changed {
                    Action::Redraw
                } else {
                    Action::None
                }
            }
            Key::Char(c) if c.is_ascii_digit() => {
                let i = c as usize - '0' as usize;
                if i < gpus {
                    self.selected = i;
                    self.only_selected = true;
                    Action::Redraw
                } else {
                    Action::None
                }
            }
            _ => Action::None,
        }
    }

    /// A new sample (`new`, its GPUs) after `old`: the selection stays on
    /// the same GPU, its node and index, wherever the new sample lists it
    /// (a node that answers again puts its GPUs before another's; a node
    /// that fails takes its own away); a GPU that is gone leaves the
    /// selection where it was, within the list.
    pub fn follow(&mut self, old: &[GpuSnap], new: &[GpuSnap]) {
        let key = old.get(self.selected).map(|g| (&g.host, g.index));
        let at = key
            .and_then(|(host, index)| new.iter().position(|g| g.host == *host && g.index == index));
        self.selected = at.unwrap_or(self.selected.min(new.len().saturating_sub(1)));
    }

    /// A click on the line of GPU `pos` (its position in the sample):
    /// select it and show only its processes; a click on the GPU already
    /// shown alone shows every GPU's again. A click closes the help.
    pub fn click_gpu(&mut self, pos: usize) -> Action {
        if std::mem::take(&mut self.help) {
            return Action::Redraw;
        }
        let alone = self.only_selected && self.selected == pos;
        self.selected = pos;
        self.only_selected = !alone;
        Action::Redraw
    }

    /// A click on the header of column `col` (an index into [`COLUMNS`]):
    /// sort by it (numbers largest first); on the sort column, the other
    /// order.
    pub fn click_column(&mut self, col: usize) -> Action {
        if std::mem::take(&mut self.help) {
            return Action::Redraw;
        }
        let Some(c) = COLUMNS.get(col) else {
            return Action::None;
        };
        if self.sort == col {
            self.descending = !self.descending;
        } else {
            self.sort = col;
            self.descending = c.numeric;
        }
        Action::Redraw
    }

    /// The mouse wheel: the process table three rows down or up, at most
    /// to `max` (the rows that do not fit).
    pub fn wheel(&mut self, down: bool, max: usize) -> Action {
        let next = if down {
            (self.scroll + WHEEL_ROWS).min(max)
        } else {
            self.scroll.min(max).saturating_sub(WHEEL_ROWS)
        };
        if next == self.scroll {
            return Action::None;
        }
        self.scroll = next;
        Action::Redraw
    }

    /// A key while the filter line is typed: Enter keeps it, Esc drops it.
    fn edit(&mut self, key: Key) -> Action {
        match key {
            Key::Enter => self.editing = false,
            Key::Esc => {
                self.editing = false;
                self.filter.clear();
            }
            Key::Backspace => {
                self.filter.pop();
            }
            Key::Char(c) if !c.is_control() && self.filter.chars().count() < 64 => {
                self.filter.push(c)
            }
            _ => return Action::None,
        }
        Action::Redraw
    }

    /// The next longer (`up`) or shorter refresh interval; F2 wraps round.
    fn step_interval(&mut self, up: bool, wrap: bool) -> Action {
        let now = self.interval_ms;
        let next = if up {
            INTERVALS_MS.iter().copied().find(|&i| i > now)
        } else {
            INTERVALS_MS.iter().rev().copied().find(|&i| i < now)
        };
        let next = match next {
            Some(n) => n,
            None if wrap => INTERVALS_MS[0],
            None => return Action::None,
        };
        self.interval_ms = next;
        Action::Collector
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GPUs of these (host, index), in this order.
    fn gpus(list: &[(&str, u32)]) -> Vec<GpuSnap> {
        use nvq_core::model::top::Health;
        list.iter()
            .map(|&(host, i)| {
                let mut g = GpuSnap::unknown(i, "".into(), "".into(), Health::Fresh);
                g.host = host.into();
                g
            })
            .collect()
    }

    #[test]
    fn the_selection_follows_its_node_and_index_not_its_row() {
        let mut ui = Ui::new(1000, false);
        let before = gpus(&[("b", 0), ("b", 1)]);
        ui.selected = 1;
        // Node a answers again: its GPUs come first.
        let after = gpus(&[("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1)]);
        ui.follow(&before, &after);
        assert_eq!(ui.selected, 4);
        // Node a fails: b's GPU 1 is second again.
        ui.follow(&after, &before);
        assert_eq!(ui.selected, 1);
        // A GPU that is gone: the selection stays within the list.
        ui.follow(&before, &gpus(&[("a", 0)]));
        assert_eq!(ui.selected, 0);
    }

    #[test]
    fn interval_steps_stay_between_100_ms_and_10_s() {
        let mut ui = Ui::new(1000, false);
        assert_eq!(ui.key(Key::Char('+'), 1), Action::Collector);
        assert_eq!(ui.interval_ms, 2000);
        for _ in 0..20 {
            ui.key(Key::Char('+'), 1);
        }
        assert_eq!(ui.interval_ms, MAX_INTERVAL_MS);
        assert_eq!(ui.key(Key::Char('+'), 1), Action::None);
        for _ in 0..20 {
            ui.key(Key::Char('-'), 1);
        }
        assert_eq!(ui.interval_ms, MIN_INTERVAL_MS);
        assert_eq!(ui.key(Key::F(2), 1), Action::Collector);
        assert_eq!(ui.interval_ms, 200);
        assert_eq!(Ui::new(5, false).interval_ms, MIN_INTERVAL_MS);
        // An interval between the steps moves to the next step either way.
        let mut ui = Ui::new(1500, false);
        ui.key(Key::Char('-'), 1);
        assert_eq!(ui.interval_ms, 1000);
    }

    #[test]
    fn clicks_select_a_gpu_or_sort_and_the_wheel_scrolls() {
        let mut ui = Ui::new(1000, false);
        assert_eq!(ui.click_gpu(2), Action::Redraw);
        assert_eq!((ui.selected, ui.only_selected), (2, true));
        ui.click_gpu(2);
        assert_eq!((ui.selected, ui.only_selected), (2, false));
        let sm = COLUMNS.iter().position(|c| c.id == ProcCol::Sm).unwrap();
        ui.click_column(sm);
        assert_eq!((ui.sort_column().name, ui.descending), ("sm", true));
        ui.click_column(sm);
        assert!(!ui.descending);
        assert_eq!(ui.click_column(COLUMNS.len()), Action::None);
        assert_eq!(ui.wheel(true, 4), Action::Redraw);
        assert_eq!(ui.scroll, 3);
        ui.wheel(true, 4);
        assert_eq!(ui.scroll, 4);
        assert_eq!(ui.wheel(true, 4), Action::None);
        ui.wheel(false, 4);
        ui.wheel(false, 4);
        assert_eq!((ui.scroll, ui.wheel(false, 4)), (0, Action::None));
        ui.key(Key::Char('h'), 3);
        ui.click_gpu(0);
        assert!(
            !ui.help && ui.selected == 2,
            "a click closes the help first"
        );
    }

    #[test]
    fn filter_is_typed_then_kept_or_dropped() {
        let mut ui = Ui::new(1000, false);
        ui.key(Key::Char('/'), 2);
        for c in "py".chars() {
            ui.key(Key::Char(c), 2);
        }
        // While typing, q is a letter, not quit.
        assert_eq!(ui.key(Key::Char('q'), 2), Action::Redraw);
        ui.key(Key::Backspace, 2);
        ui.key(Key::Enter, 2);
        assert_eq!(ui.filter, "py");
        assert!(!ui.editing);
        assert_eq!(ui.key(Key::Esc, 2), Action::Redraw);
        assert_eq!(ui.filter, "");
        assert_eq!(ui.key(Key::CtrlC, 2), Action::Quit);
        assert_eq!(ui.key(Key::Char('/'), 2), Action::Redraw);
        assert_eq!(ui.key(Key::CtrlZ, 2), Action::Suspend, "even while editing");
    }

    #[test]
    fn sort_select_pause_zoom_help_quit() {
        let mut ui = Ui::new(1000, false);
        assert_eq!(ui.sort_column().name, "gpu_mem");
        ui.key(Key::Char('s'), 2);
        assert_ne!(ui.sort_column().name, "gpu_mem");
        ui.key(Key::Char('<'), 2);
        assert_eq!(ui.sort_column().name, "gpu_mem");
        let d = ui.descending;
        ui.key(Key::Char('r'), 2);
        assert_eq!(ui.descending, !d);
        ui.key(Key::Down, 2);
        ui.key(Key::Down, 2);
        assert_eq!(ui.selected, 1);
        ui.key(Key::Enter, 2);
        assert!(ui.only_selected);
        assert_eq!(ui.key(Key::Char('7'), 2), Action::None);
        ui.key(Key::Char('0'), 2);
        assert_eq!((ui.selected, ui.only_selected), (0, true));
        assert_eq!(ui.key(Key::Char('p'), 2), Action::Collector);
        assert!(ui.paused);
        ui.key(Key::Char('z'), 2);
        assert_eq!(ui.zoom_s(), 300);
        for _ in 0..9 {
            ui.key(Key::Char('Z'), 2);
        }
        assert_eq!(ui.zoom_s(), 3600);
        ui.key(Key::Char('?'), 2);
        assert!(ui.help);
        assert_eq!(ui.key(Key::Char('x'), 2), Action::Redraw);
        assert!(!ui.help);
        assert_eq!(ui.key(Key::Char('q'), 2), Action::Quit);
    }
}
