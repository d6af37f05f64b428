//! The terminal while `nvq top` runs: raw mode and the alternate screen
//! (crossterm), keys as [`Key`]s, and the way back. [`Terminal::enter`]
//! returns a guard whose drop restores the terminal; a panic restores it
//! before the panic's message is printed ([`install_panic_hook`]); the
//! runner ends the run on `q`, Ctrl+C, SIGTERM, SIGHUP and a terminal that
//! is gone, so the guard is dropped in every case but SIGKILL.

use super::state::Key;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::prelude::CrosstermBackend;
use std::io::Stdout;
use std::sync::atomic::{AtomicBool, Ordering};

/// Raw mode and the alternate screen are on.
static ACTIVE: AtomicBool = AtomicBool::new(false);

pub type Tui = ratatui::Terminal<CrosstermBackend<Stdout>>;

/// The terminal in `top`'s state; dropping it puts it back.
pub struct Terminal {
    pub tui: Tui,
}

impl Terminal {
    pub fn enter() -> std::io::Result<Self> {
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = std::io::stdout();
        if let Err(e) = execute!(out, terminal::EnterAlternateScreen, cursor::Hide) {
            restore();
            return Err(e);
        }
        match ratatui::Terminal::new(CrosstermBackend::new(out)) {
            Ok(tui) => Ok(Terminal { tui }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        restore();
    }
}

/// Leave the alternate screen, show the cursor, end raw mode (once; later
/// calls do nothing).
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = execute!(
            std::io::stdout(),
            terminal::LeaveAlternateScreen,
            cursor::Show
        );
        let _ = terminal::disable_raw_mode();
    }
}

/// Restore the terminal before any panic message is printed (the message
/// would be lost on the alternate screen, and the shell left in raw mode).
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// What the input thread reads.
pub enum Input {
    Key(Key),
    Resize,
    /// The terminal is gone (or cannot be read).
    Closed,
}

/// Wait for the next input that matters.
pub fn next_input() -> Input {
    loop {
        match event::read() {
            Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => {
                if let Some(key) = map_key(k.code, k.modifiers) {
                    return Input::Key(key);
                }
            }
            Ok(Event::Resize(_, _)) => return Input::Resize,
            Ok(_) => {}
            Err(_) => return Input::Closed,
        }
    }
}

fn map_key(code: KeyCode, mods: KeyModifiers) -> Option<Key> {
    Some(match code {
        KeyCode::Char('c') | KeyCode::Char('C') if mods.contains(KeyModifiers::CONTROL) => {
            Key::CtrlC
        }
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::F(n) => Key::F(n),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_c_is_quit_not_a_letter() {
        assert_eq!(
            map_key(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Key::CtrlC)
        );
        assert_eq!(
            map_key(KeyCode::Char('c'), KeyModifiers::NONE),
            Some(Key::Char('c'))
        );
        assert_eq!(map_key(KeyCode::F(2), KeyModifiers::NONE), Some(Key::F(2)));
        assert_eq!(map_key(KeyCode::Home, KeyModifiers::NONE), None);
    }
}
