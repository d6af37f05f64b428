//! What `dmon` and `pmon` share: checking `-d`, `-c`, `-o` and `--format`,
//! and the loop that reads every GPU under the sample's deadline and hands
//! the rows to nvidia-smi's column text or one of nvq's formats.

use super::history::{self, Noted};
use super::plan::Common;
use super::{apply_script, finish_script, ScriptRun};
use crate::cli::format::Format;
use crate::cli::value::Monitor as MonitorKind;
use crate::cli::MonitorArgs;
use crate::output::{Sink, SinkMode};
use crate::schedule::{self as looping, deadline, Flow, Schedule};
use crate::script::{self, RowKey, Script};
use nvq_core::error::NvqError;
use nvq_core::model::{Column, FieldInfo, NvmlCode, Row, Value};
use nvq_core::nvml::Session;
use nvq_core::render::monitor::{Layout, Monitor, MonitorCsv, Slot, SmiCsv};
use nvq_core::render::{FormatKind, FormatSpec, Formatter};
use nvq_core::source::monitor::{Metric, Table};
use nvq_core::source::Target;
use std::sync::Arc;
use std::time::Duration;

/// The first Windows driver seen printing 15 characters again.
pub const WDDM_NAMES_NARROW_FROM: u32 = 610;

/// A monitor's checked options.
pub struct Plan {
    pub interval: Duration,
    pub count: Option<u64>,
    pub date: bool,
    pub time: bool,
    /// `None`: nvidia-smi's own columns (or its own CSV, `smi_csv`).
    pub format: Option<FormatSpec>,
    /// nvidia-smi's own dmon CSV (`--format csv[,nounit][,noheader]` as
    /// `nvidia-smi dmon`).
    pub smi_csv: Option<SmiCsv>,
}

impl Plan {
    /// Check the options of monitor `M` (`dmon`, `pmon`), whose interval
    /// is at most `M::MAX_DELAY` seconds, however it was given (`-d`, whose
    /// value clap has read, `-l`, `-lms`, or before the name). `--format`
    /// was read for it by the plan (`Formats::Monitor`): one of nvq's
    /// formats, or, for dmon run as `nvidia-smi`, nvidia-smi's own CSV.
    pub fn new<M: MonitorKind>(o: &MonitorArgs<M>, common: &Common<'_>) -> Result<Self, NvqError> {
        let cmd = M::NAME;
        let interval = common.interval.unwrap_or(Duration::from_secs(1));
        if let Some(max) = M::MAX_DELAY {
            if interval > Duration::from_secs(max) {
                return Err(NvqError::Usage(format!(
                    "{cmd}: the interval is at most {max} seconds (-d 1 to -d {max})."
                )));
            }
        }
        let (date, time) = match o.options.as_deref() {
            None => (false, false),
            Some(s) => {
                let ok = !s.is_empty() && s.chars().all(|c| c == 'D' || c == 'T');
                if !ok {
                    return Err(NvqError::Usage(format!(
                        "{cmd}: invalid value \"{s}\" for -o; give D (date), T (time) or DT."
                    )));
                }
                (s.contains('D'), s.contains('T'))
            }
        };
        // Read for the monitor (`Formats::Monitor`): nvq's formats, or
        // nvidia-smi's own dmon CSV.
        let (format, own) = match common.format {
            Some(Format::Rows(spec)) => (Some(spec), None),
            Some(Format::SmiCsv(spec)) => (None, Some(spec)),
            Some(Format::Json) | None => (None, None),
        };
        Ok(Plan {
            interval,
            count: common.count,
            date,
            time,
            format,
            smi_csv: own,
        })
    }

    /// The date and time columns `-o` asks for, as nvq columns and slots.
    fn clock_columns(&self) -> (Vec<Column>, Vec<Slot>) {
        let mut cols = Vec::new();
        let mut slots = Vec::new();
        if self.date {
            cols.push(column("date", None, "Local date of the sample, YYYYMMDD."));
            slots.push(Slot::left("Date", "YYYYMMDD", "", 12));
        }
        if self.time {
            cols.push(column("time", None, "Local time of the sample, HH:MM:SS."));
            slots.push(Slot::left("Time", "HH:MM:SS", "", 12));
        }
        (cols, slots)
    }
}

/// `-s` of `cmd`: the metrics of `letters` (the table's default without
/// `-s`) from the command's `table`.
pub fn selected(cmd: &str, table: &Table, letters: Option<&str>) -> Result<Vec<Metric>, NvqError> {
    let letters = letters.unwrap_or(table.default_groups);
    table.select(letters).map_err(|g| {
        let groups = table.groups;
        NvqError::Usage(format!(
            "{cmd}: unknown metric group '{g}' in -s {letters}; choose from {groups}."
        ))
    })
}

/// An nvq column of a monitor.
pub fn column(name: &'static str, unit: Option<&'static str>, help: &'static str) -> Column {
    Column::plain(name, unit, help)
}

/// A column that tells rows apart (the GPU's index, a PID): `--summary`
/// shows it, never averages it.
pub fn key_column(name: &'static str, help: &'static str) -> Column {
    Column {
        kind: nvq_core::model::FieldKind::RowLabel,
        ..Column::plain(name, None, help)
    }
}

/// A metric's column: its name, unit and help; the kind and Prometheus
/// name of the `--query-gpu` field of the same quantity, if it has one.
pub fn metric_column(m: &Metric) -> Column {
    let mut c = column(m.name, m.unit, m.help);
    if let Some(f) = m.fact().filter(|_| m.named_by_fact) {
        let info = f.info();
        c.kind = info.kind;
        c.metric = Some(info.metric.unwrap_or(info.name));
    }
    c
}

/// What nvidia-smi's monitor layouts depend on: the driver's major version,
/// and whether the GPUs run under Windows' display driver model (WDDM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Driver {
    pub major: u32,
    pub wddm: bool,
}

impl Driver {
    /// The driver of `session`, WDDM when the first of `devices` says so.
    /// Only drivers before 610 lay anything out by driver model (pmon's
    /// name width), so newer ones are not asked.
    fn of(session: &Session, devices: &[u32]) -> Driver {
        let major = session.driver_major();
        Driver {
            major,
            wddm: major < WDDM_NAMES_NARROW_FROM && session.wddm(devices),
        }
    }
}

/// Everything a monitor run needs besides its per-GPU reader.
pub struct Run<'a> {
    /// The NVML library, `-i`, `-f`, the scripting flags.
    pub common: &'a Common<'a>,
    pub plan: Plan,
    /// The columns after the date and time.
    pub columns: Vec<Column>,
    /// nvidia-smi's layout of the same columns, for the driver's major
    /// version (the layouts changed over the years).
    pub layout: &'a dyn Fn(Driver) -> Layout,
    /// How `--summary` and `--assert` tell rows apart: the column after
    /// the GPU's (pmon: the PID; dmon with MIG rows: the GPU instance).
    pub sub_key: bool,
}

/// Run a monitor whose GPUs are read by a reader `R` each (built by `new`
/// on the worker thread that uses it; it keeps what the GPU's rows need
/// from one sample to the next), `read` giving a sample's rows.
pub fn run_readers<R: Send + 'static>(
    r: Run<'_>,
    new: impl Fn() -> R + Send + Sync + 'static,
    read: fn(&mut R, &Session, &Target, u32) -> Vec<Row>,
) -> Result<(), NvqError> {
    run_shared_readers(r, new, move |reader, session, target, count| {
        read(reader, session, target, count)
    })
}

/// [`run_readers`] for a reader that keeps NVML resources beyond a sample
/// (GPM sample buffers), which hold the session: `read` gets it shared.
pub fn run_shared_readers<R: Send + 'static>(
    r: Run<'_>,
    new: impl Fn() -> R + Send + Sync + 'static,
    read: impl Fn(&mut R, &Arc<Session>, &Target, u32) -> Vec<Row> + Send + Sync + 'static,
) -> Result<(), NvqError> {
    let read = Arc::new(read);
    run(
        r,
        Arc::new(move |session, gpu, count| {
            let targets = nvq_core::source::targets(&session, &[gpu]);
            let mut reader = new();
            let read = Arc::clone(&read);
            Box::new(move || {
                targets
                    .iter()
                    .flat_map(|t| read(&mut reader, &session, t, count))
                    .collect()
            })
        }),
    )
}

/// A GPU's reader, built on the worker thread that runs it: given the
/// session, the GPU's index and the GPU count, a job returning its rows.
type MakeReader =
    dyn Fn(Arc<Session>, u32, u32) -> Box<dyn FnMut() -> Vec<Row> + Send> + Send + Sync;

/// Run a monitor: every `-d` seconds read the GPUs off the main thread
/// through `schedule::deadline::PerGpu` (one lane reads them in turn; a GPU
/// that misses the sample's deadline gets a late row and the others move
/// to a new lane) and write the rows.
fn run(r: Run<'_>, make: Arc<MakeReader>) -> Result<(), NvqError> {
    let mode = match r.plan.format {
        Some(f) if f.kind.replaces_file() => SinkMode::ReplaceEachSample,
        _ => SinkMode::Append,
    };
    let (mut columns, mut slots) = r.plan.clock_columns();
    let clocks = columns.len();
    columns.extend(r.columns.iter().cloned());
    // The flags are checked before NVML is touched.
    let flags = r.common.script;
    let mut script = match flags.any() {
        true => Some(compile_script(
            &columns,
            clocks,
            flags,
            r.plan.format,
            r.sub_key,
        )?),
        false => None,
    };
    // A monitor always loops (1 s without -d).
    crate::schedule::signals::arm();
    let session = Arc::new(r.common.session()?);
    let devices = r.common.gpus(&session)?;
    let filename = r.common.filename;
    let count = session.device_count().unwrap_or(0);
    let mut sink = Sink::open_with(filename, mode)?;
    let own = (r.layout)(Driver::of(&session, &devices));
    slots.extend(own.slots.iter().cloned());
    let layout = Layout { slots, ..own };
    let mut fmt: Box<dyn Formatter> = match (r.plan.format, r.plan.smi_csv) {
        (Some(f), _) => {
            f.formatter_with(crate::output::terminal::stdout_colour(filename.is_some()))
        }
        (None, Some(opts)) => Box::new(MonitorCsv::new(layout, opts)),
        (None, None) => Box::new(Monitor::new(layout)),
    };
    let n = devices.len();
    let width = r.columns.len();
    // One job per GPU; a job builds its reader (handle lookups included) on
    // its first run, on a worker thread, under the sample's deadline.
    // A history keys the series by the GPU's UUID and measures memory against the GPU's: each job reads them
    // once, on its worker, under the deadline.
    let noted = Noted::default();
    let want = script.as_ref().is_some_and(|s| s.needs_history());
    let jobs: Vec<_> = devices
        .iter()
        .map(|&gpu| {
            let (make, sess) = (Arc::clone(&make), Arc::clone(&session));
            let mut reader: Option<Box<dyn FnMut() -> Vec<Row> + Send>> = None;
            let (noted, mut done) = (noted.clone(), !want);
            move || {
                let rows = reader.get_or_insert_with(|| make(Arc::clone(&sess), gpu, count))();
                if !done {
                    done = noted.read(&sess, gpu, count);
                }
                rows
            }
        })
        .collect();
    let _ = n;
    let mut workers = deadline::PerGpu::start(jobs)
        .map_err(|e| NvqError::Start(format!("cannot start the GPU readers: {e}")))?;
    let schedule = Schedule {
        interval: Some(r.plan.interval),
        count: r.plan.count,
        deadline: script.as_ref().and_then(|s| s.timeout),
    };
    let (date, time) = (r.plan.date, r.plan.time);
    let mut failed = None;
    let end = looping::run_with(schedule, &columns, fmt.as_mut(), &mut sink, |tick| {
        let per_gpu = workers.sample(tick.deadline, |i| vec![late_row(devices[i], width)]);
        let (d, t) = nvq_core::source::time::monitor_date_time();
        let mut rows: Vec<Row> = per_gpu.into_iter().flatten().collect();
        for row in &mut rows {
            let mut cells = Vec::with_capacity(clocks + row.cells.len());
            if date {
                cells.push(Value::text(d.clone()));
            }
            if time {
                cells.push(Value::text(t.clone()));
            }
            cells.append(&mut row.cells);
            row.cells = cells;
        }
        let now = tick
            .due_wall()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(f64::NAN, |d| d.as_secs_f64());
        Ok(match script.as_mut() {
            Some(s) => {
                history::tell(&noted, s);
                apply_script(s, rows, None, now, &mut failed)
            }
            None => (rows, Flow::Continue),
        })
    })?;
    let Some(script) = script else {
        return Ok(());
    };
    let run = ScriptRun {
        end,
        failed,
        count: r.plan.count,
        timeout: r.common.timeout,
    };
    // With nvidia-smi's own columns the summary is printed as a table.
    let format = r.plan.format.unwrap_or(FormatSpec {
        kind: FormatKind::Table,
        noheader: false,
        nounits: false,
    });
    finish_script(&script, run, &columns, format)
}

/// The scripting flags over a monitor's columns: names are the columns'
/// (`sm`, `fb`, `command`, ...); each row is keyed by its GPU and the
/// column after it (pmon: the PID).
fn compile_script(
    columns: &[Column],
    clocks: usize,
    flags: script::Flags<'_>,
    format: Option<FormatSpec>,
    sub_key: bool,
) -> Result<Script, NvqError> {
    super::check_summary_format(flags.summary, format)?;
    let infos: Vec<FieldInfo> = columns
        .iter()
        .map(|c| {
            let info = FieldInfo::new(c.name, c.help).kind(c.kind);
            match c.unit {
                Some(u) => info.unit(u),
                None => info,
            }
        })
        .collect();
    let all: Vec<usize> = (0..infos.len()).collect();
    let key = RowKey::Cells {
        gpu: clocks,
        sub: sub_key.then_some(clocks + 1),
    };
    let ids = columns.iter().map(|c| c.id).collect();
    Script::with_fields(infos, ids, &all, flags, key)
}

/// The row of a GPU that missed the sample's deadline: its index, then
/// `[Timeout]` cells.
fn late_row(gpu: u32, width: usize) -> Row {
    let mut cells = vec![Value::Int(i64::from(gpu))];
    cells.extend((1..width).map(|_| Value::err(NvmlCode::TIMEOUT)));
    Row::new(cells)
}
