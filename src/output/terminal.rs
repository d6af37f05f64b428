//! Whether output may carry ANSI colour. The decision is made here, once,
//! and handed to the formatter as a plain `bool`.

use std::ffi::OsStr;
use std::io::IsTerminal;

/// The rule: colour only on a terminal, and never when `NO_COLOR` is set to
/// a non-empty value (<https://no-color.org>).
pub fn colour_allowed(is_terminal: bool, no_color: Option<&OsStr>) -> bool {
    is_terminal && !matches!(no_color, Some(v) if !v.is_empty())
}

/// The rule applied to this process: output goes to stdout (not a `-f`
/// file), stdout is a terminal, `NO_COLOR` is unset or empty.
/// Is standard output a terminal (not a pipe or a file)?
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

pub fn stdout_colour(to_file: bool) -> bool {
    !to_file
        && colour_allowed(
            std::io::stdout().is_terminal(),
            std::env::var_os("NO_COLOR").as_deref(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_without_no_color_only() {
        assert!(colour_allowed(true, None));
        assert!(colour_allowed(true, Some(OsStr::new(""))));
        assert!(!colour_allowed(true, Some(OsStr::new("1"))));
        assert!(!colour_allowed(false, None));
    }
}
