//! What nvq does with parsed arguments.

use crate::cli::{self, Args};
use crate::error::NvqError;
use crate::fields::{self, QueryMode};
use crate::format::{self, Column, FormatSpec};
use crate::nvml::{select, Session};
use crate::output::looping::{self, Schedule};
use crate::output::{Sink, SinkMode};
use crate::Personality;
use std::time::Duration;

/// A fully validated query, ready to run.
pub struct QueryPlan {
    pub mode: QueryMode,
    pub fields: Vec<usize>,
    pub format: FormatSpec,
    pub interval: Option<Duration>,
    pub count: Option<u64>,
}

impl QueryPlan {
    /// Validate everything about a query before NVML is touched.
    pub fn from_args(args: &Args, mode: QueryMode, list: &str) -> Result<Self, NvqError> {
        let fields = mode.resolve(list)?;
        let format = match args.format.as_deref() {
            Some(f) => FormatSpec::parse(f)?,
            None => {
                return Err(NvqError::Usage(format!(
                    "--{} needs --format=csv[,noheader][,nounits].",
                    mode.option()
                )))
            }
        };
        let interval = match (&args.loop_sec, &args.loop_ms) {
            (Some(_), Some(_)) => return Err(NvqError::InvalidCombination),
            (Some(s), None) => Some(cli::parse_loop_sec(s)?),
            (None, Some(ms)) => Some(cli::parse_loop_ms(ms)?),
            (None, None) => None,
        };
        let count = args.count.as_deref().map(cli::parse_count).transpose()?;
        if count.is_some() && interval.is_none() {
            return Err(NvqError::Usage(
                "--count needs a loop: add -l/--loop=SEC or -lms/--loop-ms=MS.".into(),
            ));
        }
        Ok(QueryPlan {
            mode,
            fields,
            format,
            interval,
            count,
        })
    }
}

/// Run nvq. Output goes to stdout or the `-f` file; the caller prints errors.
pub fn run(args: &Args) -> Result<(), NvqError> {
    run_as(args, Personality::Nvq)
}

/// [`run`], knowing how nvq was invoked (the summary table may use colour
/// only in nvq's own mode).
pub fn run_as(args: &Args, personality: Personality) -> Result<(), NvqError> {
    if let Some(mode) = args.help_query() {
        let mut sink = Sink::stdout();
        return sink.write(fields::help::render(mode).as_bytes());
    }
    let queries = args.queries();
    if queries.len() > 1 {
        return Err(NvqError::InvalidCombination);
    }
    if args.version || args.list_gpus {
        if !queries.is_empty() || args.format.is_some() || (args.version && args.list_gpus) {
            return Err(NvqError::InvalidCombination);
        }
        return run_listing(args);
    }
    if let Some(&(mode, list)) = queries.first() {
        let plan = QueryPlan::from_args(args, mode, list)?;
        return run_query(args, &plan);
    }
    if args.format.is_some() {
        return Err(NvqError::InvalidCombination);
    }
    run_summary(args, personality)
}

/// No query option: print nvidia-smi's summary table (again every `-l`
/// interval).
fn run_summary(args: &Args, personality: Personality) -> Result<(), NvqError> {
    use std::io::IsTerminal;
    let interval = match (&args.loop_sec, &args.loop_ms) {
        (Some(_), Some(_)) => return Err(NvqError::InvalidCombination),
        (Some(s), None) => Some(cli::parse_loop_sec(s)?),
        (None, Some(ms)) => Some(cli::parse_loop_ms(ms)?),
        (None, None) => None,
    };
    let count = args.count.as_deref().map(cli::parse_count).transpose()?;
    let session = Session::open(&args.lib_source())?;
    let devices = select::select(&session, args.id.as_deref())?;
    let mut sink = Sink::open(args.filename.as_deref())?;
    let colour = personality == Personality::Nvq
        && args.filename.is_none()
        && !matches!(std::env::var_os("NO_COLOR"), Some(v) if !v.is_empty())
        && std::io::stdout().is_terminal();
    // TODO: move onto the shared loop scheduler once it takes a plain
    // "produce bytes" callback.
    let mut buf = Vec::with_capacity(8192);
    let mut taken: u64 = 0;
    loop {
        let started = std::time::Instant::now();
        let summary = fields::summary::collect(&session, &devices);
        buf.clear();
        format::summary_table::render(&summary, colour, &mut buf);
        sink.write(&buf)?;
        taken += 1;
        let Some(every) = interval else {
            return Ok(());
        };
        if count.is_some_and(|n| taken >= n) {
            return Ok(());
        }
        std::thread::sleep(every.saturating_sub(started.elapsed()));
    }
}

fn run_query(args: &Args, plan: &QueryPlan) -> Result<(), NvqError> {
    let session = Session::open(&args.lib_source())?;
    let devices = select::select(&session, args.id.as_deref())?;
    let count = session.device_count().unwrap_or(0);
    let major = session.driver_major();
    let infos = plan.mode.fields();
    let columns: Vec<Column> = plan
        .fields
        .iter()
        .filter_map(|&i| infos.get(i))
        .map(|f| Column::from_info(f, major))
        .collect();
    let mode = SinkMode::for_format(plan.format.kind.name());
    let mut sink = Sink::open_with(args.filename.as_deref(), mode)?;
    let colour = crate::output::terminal::stdout_colour(args.filename.is_some());
    let mut fmt = plan.format.formatter_with(colour);
    let ident = fmt.needs_gpu_ident();
    let schedule = Schedule {
        interval: plan.interval,
        count: plan.count,
    };
    // GPU handles are looked up once; every sample of a loop reuses them.
    let targets = fields::gpu::targets(&session, &devices);
    looping::run(schedule, &columns, fmt.as_mut(), &mut sink, || {
        Ok(match plan.mode {
            QueryMode::Gpu => {
                fields::gpu::collect_targets(&session, &targets, count, &plan.fields, ident)
            }
            QueryMode::ComputeApps => {
                fields::compute_apps::collect(&session, &devices, &plan.fields)
            }
            QueryMode::AccountedApps => {
                fields::accounted_apps::collect(&session, &devices, &plan.fields)
            }
            QueryMode::RetiredPages => {
                fields::retired_pages::collect(&session, &devices, &plan.fields)
            }
            QueryMode::RemappedRows => {
                fields::remapped_rows::collect(&session, &devices, &plan.fields)
            }
            QueryMode::SupportedClocks => {
                fields::supported_clocks::collect(&session, &devices, &plan.fields)
            }
        })
    })
}

/// `--version` and `-L/--list-gpus`, both read through NVML.
fn run_listing(args: &Args) -> Result<(), NvqError> {
    let session = Session::open(&args.lib_source())?;
    let text = if args.version {
        fields::list::render_version(&fields::list::versions(&session))
    } else {
        let devices = select::select(&session, args.id.as_deref())?;
        fields::list::render_list(&fields::list::gpus(&session, &devices))
    };
    let mut sink = Sink::open(args.filename.as_deref())?;
    sink.write(text.as_bytes())
}
