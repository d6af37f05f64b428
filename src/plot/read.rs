//! Which picture a log makes, chosen at its first row: a run's (`nvq run --log`, see [`super::run`]) or the
//! general one (every other log nvq writes, see [`super::collect`]).

use super::collect::Collector;
use super::panel::{Drawing, PlotSpec};
use super::run::{is_run_log, RunCollector};
use nvq_core::model::log::{LogCell, LogHead};

/// A log being read: its kind is known from its first row on.
pub enum Reading<'s> {
    /// No row read yet.
    Waiting(&'s PlotSpec, Option<String>),
    General(Box<Collector<'s>>),
    Run(Box<RunCollector>),
}

impl<'s> Reading<'s> {
    /// A log to read for `spec`; `source` names its host where its rows name none (see [`Collector::new`]).
    pub fn new(spec: &'s PlotSpec, source: Option<String>) -> Self {
        Reading::Waiting(spec, source)
    }

    /// One row of the log.
    pub fn row(&mut self, head: &LogHead, t: f64, cells: &[LogCell]) {
        if let Reading::Waiting(spec, source) = self {
            let (spec, source) = (*spec, source.take());
            // `--field` draws the columns asked for, as of any log.
            *self = if is_run_log(head) && spec.fields.is_empty() {
                Reading::Run(Box::new(RunCollector::new(spec, source)))
            } else {
                Reading::General(Box::new(Collector::new(spec, source)))
            };
        }
        match self {
            Reading::General(c) => c.row(head, t, cells),
            Reading::Run(c) => c.row(head, t, cells),
            Reading::Waiting(..) => {}
        }
    }

    /// Is it a run's log?
    pub fn is_run(&self) -> bool {
        matches!(self, Reading::Run(_))
    }

    /// The panels, once every row is read; an error says why nothing can be drawn.
    pub fn finish(self, head: &LogHead) -> Result<Drawing, String> {
        match self {
            Reading::General(c) => c.finish(head),
            Reading::Run(c) => c.finish(head),
            Reading::Waiting(..) => Err("the log has no rows: there is nothing to draw".into()),
        }
    }
}
