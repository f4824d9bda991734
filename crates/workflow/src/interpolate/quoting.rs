//! Where a `${...}` of a command stands as `sh` reads it: expanded, in
//! single quotes, or in a here-document that expands nothing.
//!
//! The runner needs this to put a reference's shell variable in a form
//! that gives the value exactly where the author wrote it: `"${V}"` in
//! double quotes, `'"${V}"'` to step out of single quotes and back. It is
//! a reader of quoting only, not a shell parser: it follows quotes,
//! backslashes, comments, `$(...)`, backquotes, `${...}` and
//! here-documents, which is all that decides whether a `$` expands. Where
//! it reads a command wrongly the result is a wrong word, never a value
//! run as code, since every form it chooses only names a variable.

/// How the shell treats a `$` at some place of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quoting {
    /// Unquoted, in double quotes, in an unquoted here-document or in a
    /// comment: `${NAME}` expands (or, in a comment, does nothing).
    Expands,
    /// Between single quotes: nothing expands until the quote closes.
    SingleQuoted,
    /// In the body of a here-document whose delimiter is quoted
    /// (`<<'EOF'`): nothing in it expands, and there is no way out.
    LiteralHeredoc,
}

/// The quoting of each `${` of `command`, by the byte offset of its `$`,
/// in order. A `${` not listed is escaped with a backslash, or inside
/// another `${...}`.
pub(crate) fn dollar_braces(command: &str) -> Vec<(usize, Quoting)> {
    let mut reader = Reader {
        text: command.as_bytes(),
        at: 0,
        found: Vec::new(),
        heredocs: Vec::new(),
    };
    reader.read();
    reader.found
}

/// What closes a stretch of commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    /// The end of the text.
    End,
    /// `)` of `$(`, after this many `(` opened inside it.
    Paren(usize),
    /// The backquote of `` `...` ``.
    Backquote,
}

/// Where the reader is: among commands (the text's own, or those of a
/// `$(...)` or backquotes), or inside double quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Commands(Close),
    DoubleQuoted,
}

/// A here-document whose body starts after the current line.
struct Heredoc {
    delimiter: Vec<u8>,
    quoted: bool,
    /// `<<-`: leading tabs of the body's lines (and the delimiter line)
    /// are removed.
    strip_tabs: bool,
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    found: Vec<(usize, Quoting)>,
    heredocs: Vec<Heredoc>,
}

impl Reader<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.text.get(self.at + ahead).copied()
    }

    fn read(&mut self) {
        let mut frames = vec![Frame::Commands(Close::End)];
        while let (Some(&frame), Some(c)) = (frames.last(), self.peek(0)) {
            match frame {
                Frame::DoubleQuoted => match c {
                    b'\\' => self.at += 2,
                    b'"' => {
                        frames.pop();
                        self.at += 1;
                    }
                    b'`' => {
                        frames.push(Frame::Commands(Close::Backquote));
                        self.at += 1;
                    }
                    b'$' => self.dollar(&mut frames),
                    _ => self.at += 1,
                },
                Frame::Commands(close) => match c {
                    b'\\' => self.at += 2,
                    b'\'' => self.single_quoted(),
                    b'"' => {
                        frames.push(Frame::DoubleQuoted);
                        self.at += 1;
                    }
                    b'`' if close == Close::Backquote => {
                        frames.pop();
                        self.at += 1;
                    }
                    b'`' => {
                        frames.push(Frame::Commands(Close::Backquote));
                        self.at += 1;
                    }
                    b'$' => self.dollar(&mut frames),
                    b'(' | b')' => {
                        self.at += 1;
                        if let Close::Paren(depth) = close {
                            frames.pop();
                            if c == b'(' {
                                frames.push(Frame::Commands(Close::Paren(depth + 1)));
                            } else if depth > 0 {
                                frames.push(Frame::Commands(Close::Paren(depth - 1)));
                            }
                        }
                    }
                    b'#' if self.at_word_start() => self.comment(),
                    b'<' if self.peek(1) == Some(b'<') && self.peek(2) != Some(b'<') => {
                        self.heredoc_operator();
                    }
                    b'\n' => {
                        self.at += 1;
                        self.heredoc_bodies();
                    }
                    _ => self.at += 1,
                },
            }
        }
    }

    fn at_word_start(&self) -> bool {
        self.at == 0
            || matches!(
                self.text[self.at - 1],
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
            )
    }

    /// `$` outside single quotes: records `${`, skipping its body; enters `$(`.
    fn dollar(&mut self, frames: &mut Vec<Frame>) {
        match self.peek(1) {
            Some(b'{') => {
                self.found.push((self.at, Quoting::Expands));
                // In double quotes a `'` inside `${...}` is a plain character.
                let single_quotes = frames.last() != Some(&Frame::DoubleQuoted);
                self.at += 2;
                let mut depth = 1usize;
                while let Some(c) = self.peek(0) {
                    self.at += 1;
                    match c {
                        b'\\' => self.at += 1,
                        // `${y:-'}'}`: a quoted `}` does not end it.
                        b'\'' | b'"' if c == b'"' || single_quotes => {
                            while let Some(inner) = self.peek(0) {
                                self.at += 1;
                                if inner == c {
                                    break;
                                }
                            }
                        }
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            Some(b'(') => {
                frames.push(Frame::Commands(Close::Paren(0)));
                self.at += 2;
            }
            _ => self.at += 1,
        }
    }

    /// `'...'`: every `${` inside is single-quoted.
    fn single_quoted(&mut self) {
        self.at += 1;
        while let Some(c) = self.peek(0) {
            if c == b'\'' {
                self.at += 1;
                return;
            }
            if c == b'$' && self.peek(1) == Some(b'{') {
                self.found.push((self.at, Quoting::SingleQuoted));
            }
            self.at += 1;
        }
    }

    /// `# ...` to the end of the line, which stays to end the command.
    fn comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == b'\n' {
                return;
            }
            if c == b'$' && self.peek(1) == Some(b'{') {
                self.found.push((self.at, Quoting::Expands));
            }
            self.at += 1;
        }
    }

    /// `<<WORD` or `<<-WORD`: the delimiter, quoted when any part of it is.
    fn heredoc_operator(&mut self) {
        self.at += 2;
        let strip_tabs = self.peek(0) == Some(b'-');
        if strip_tabs {
            self.at += 1;
        }
        while matches!(self.peek(0), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        let mut delimiter = Vec::new();
        let mut quoted = false;
        while let Some(c) = self.peek(0) {
            match c {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')' => break,
                b'\\' => {
                    quoted = true;
                    delimiter.extend(self.peek(1));
                    self.at += 2;
                }
                b'\'' | b'"' => {
                    quoted = true;
                    self.at += 1;
                    while let Some(inner) = self.peek(0) {
                        self.at += 1;
                        if inner == c {
                            break;
                        }
                        delimiter.push(inner);
                    }
                }
                _ => {
                    delimiter.push(c);
                    self.at += 1;
                }
            }
        }
        if !delimiter.is_empty() {
            self.heredocs.push(Heredoc {
                delimiter,
                quoted,
                strip_tabs,
            });
        }
    }

    /// The bodies of the here-documents the line just ended opened, in order.
    fn heredoc_bodies(&mut self) {
        for heredoc in std::mem::take(&mut self.heredocs) {
            while self.at < self.text.len() {
                let end = self.text[self.at..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.text.len(), |n| self.at + n);
                let mut line = &self.text[self.at..end];
                if heredoc.strip_tabs {
                    let tabs = line.iter().take_while(|&&c| c == b'\t').count();
                    line = &line[tabs..];
                }
                let start = self.at;
                self.at = (end + 1).min(self.text.len());
                if line == heredoc.delimiter.as_slice() {
                    break;
                }
                self.body_line(start, end, heredoc.quoted);
            }
        }
    }

    /// A line of a here-document's body: only `\`, `$` and `` ` `` mean
    /// anything there, and nothing at all when the delimiter was quoted.
    fn body_line(&mut self, start: usize, end: usize, quoted: bool) {
        let mut i = start;
        while i < end {
            match self.text[i] {
                b'\\' if !quoted => i += 2,
                b'$' if self.text.get(i + 1) == Some(&b'{') => {
                    let quoting = if quoted {
                        Quoting::LiteralHeredoc
                    } else {
                        Quoting::Expands
                    };
                    self.found.push((i, quoting));
                    i += 2;
                }
                _ => i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Quoting::{Expands, LiteralHeredoc, SingleQuoted};

    /// The quoting of each `${` found, in order; each offset must be a `${`.
    fn quotings(command: &str) -> Vec<Quoting> {
        dollar_braces(command)
            .into_iter()
            .map(|(at, quoting)| {
                assert_eq!(&command[at..at + 2], "${", "{command}");
                quoting
            })
            .collect()
    }

    #[test]
    fn each_dollar_brace_is_read_in_its_quoting() {
        assert_eq!(
            quotings(
                "a ${x} \"${x}\" '${x}' \\${x} \"'${x}'\" $(echo '${x}') `echo '${x}'` ${y:-'}'} \"${y:-it's}\" ${x}"
            ),
            [
                Expands,
                Expands,
                SingleQuoted,
                // `\${x}` is escaped: not listed.
                Expands,
                SingleQuoted,
                SingleQuoted,
                Expands,
                Expands,
                Expands,
            ]
        );
    }

    #[test]
    fn here_documents_and_comments() {
        assert_eq!(
            quotings(
                "# it's ${x}\ncat <<A <<-'B'; echo ${x}\nit's ${x}\nA\n\t${x}\n\tB\necho '${x}'"
            ),
            [Expands, Expands, Expands, LiteralHeredoc, SingleQuoted]
        );
    }

    #[test]
    fn every_prefix_of_unfinished_syntax_reads_without_a_panic() {
        let command = "x=\"$(printf '%s' \\\"`echo ${a}`)\" <<-\\E$((1<<2)) # é\n${b}\n\tE\n'${c}";
        for end in (0..=command.len()).filter(|&i| command.is_char_boundary(i)) {
            let found = dollar_braces(&command[..end]);
            assert!(found.windows(2).all(|w| w[0].0 < w[1].0), "{end}");
        }
    }
}
