//! Where the commands' output goes and how it looks: the `--color` choice, the text/JSON
//! format switch, and writing to stdout (or a set of files) whole. The subcommands and
//! [`crate::run`] import these from here; nothing imports back from `lib.rs`.

use clap::ValueEnum;
use labelguard_report::Style;

/// `--color auto|always|never`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Output formats shared by the commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// The styling of what goes to stdout. `auto` asks anstream, which follows the conventions:
/// no colours unless stdout is a terminal that supports them, none with `NO_COLOR` (non-empty)
/// or `CLICOLOR=0`, colours with `CLICOLOR_FORCE`.
pub fn style(choice: ColorChoice) -> Style {
    let color = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => matches!(
            anstream::AutoStream::choice(&std::io::stdout()),
            anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi
        ),
    };
    Style { color }
}

/// Writes to stdout; a closed pipe (`| head`) ends quietly, any other failure (a full disk,
/// `> /dev/full`) is an error: exit 2 with a message.
pub fn emit(text: &str) -> anyhow::Result<()> {
    labelguard_io::output::write_with(&labelguard_io::output::Destination::Stdout, |w| {
        w.write_all(text.as_bytes())
    })?;
    Ok(())
}

/// Writes a set of outputs (stdout and files) whole or not at all.
pub fn write_set(set: &[(labelguard_io::output::Destination, &[u8])]) -> anyhow::Result<()> {
    labelguard_io::output::write_all(set)?;
    Ok(())
}
