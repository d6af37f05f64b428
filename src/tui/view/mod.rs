//! Drawing `nvq top`: a pure function of the sample, the history and the
//! person's choices, into ratatui's buffer (no terminal, no clock). The
//! terminal layer draws it on screen; the tests draw it on ratatui's
//! `TestBackend`.
//!
//! Layouts: under [`WIDE_FROM`](super::columns::WIDE_FROM) columns (or 32
//! rows) the compact one, one line per GPU (8 GPUs and their processes fit
//! 80×24); from there the wide one, with clocks, fan and PCIe on each GPU's
//! line, bigger curves side by side and every process column.
//!
//! A file per part of the screen, lowest first: `screen` (what a frame
//! shows), `paint` (writing cells) and `text` (the numbers' texts),
//! `layout` (where the parts go), then one per part: `header`,
//! `gpus`, `detail`, `curves`, `table` (the processes), `help`;
//! `hit` (what a click is on) and `frame` (a whole frame, or one drawn
//! over the last) on top.

mod curves;
mod detail;
mod frame;
mod gpus;
mod header;
mod help;
mod hit;
mod layout;
mod paint;
mod screen;
mod table;
mod text;

pub use curves::curves_moved;
pub use frame::{render, render_over, Before};
pub use hit::{hit, Hit};
pub use layout::process_rows;
pub use screen::{FullMap, LeakMap, Screen, MEM_FIELD, PROC_MEM_FIELD, UTIL_FIELD};
pub use table::shown_processes;

// What the snapshot tests (`tui::snapshots`) compare the drawing with.
#[cfg(test)]
pub(crate) use layout::regions;
#[cfg(test)]
pub(crate) use screen::{bold, style};
#[cfg(test)]
pub(crate) use table::{process_table, table_columns, widths};
