//! Numbers as Excel shows them, from a cell's number format code.
//!
//! Covers what invoices and tables use: `General`, fixed decimals (`0.00`),
//! thousands separators (`#,##0`), scaling by thousands (`#,##0,`),
//! percentages, scientific notation (`0.00E+00`), literal text and
//! currency symbols (`"$"#,##0.00`, `[$€-407] #,##0.00`, `0.00 \€`), and
//! separate sections for negative numbers and zero. Anything else (such as
//! fractions) is shown as `General`, and so is a code longer than Excel
//! lets a format be.

/// The longest format code Excel accepts (255 characters). A longer one
/// comes from no spreadsheet program, and shown as written it would pad
/// each number to as many digits as the code holds zeros: millions, for
/// a few kilobytes of `styles.xml`.
const MAX_CODE_CHARS: usize = 255;

/// `value` as the format `code` shows it.
pub fn format(value: f64, code: &str) -> String {
    if !value.is_finite() || code.chars().nth(MAX_CODE_CHARS).is_some() {
        return general(value);
    }
    let sections = split_sections(code);
    let (section, value) = match sections.len() {
        0 => return general(value),
        1 => (sections[0], value),
        2 => {
            if value < 0.0 {
                (sections[1], -value)
            } else {
                (sections[0], value)
            }
        }
        _ => {
            if value < 0.0 {
                (sections[1], -value)
            } else if value == 0.0 {
                (sections[2], value)
            } else {
                (sections[0], value)
            }
        }
    };
    format_section(value, section).unwrap_or_else(|| general(value))
}

/// Excel's `General`: up to 15 significant digits, shortest form.
pub fn general(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    if value == value.trunc() && value.abs() < 1e15 {
        return format!("{}", value as i64);
    }
    let rounded: f64 = format!("{value:.14e}").parse().unwrap_or(value);
    rounded.to_string()
}

fn split_sections(code: &str) -> Vec<&str> {
    let mut sections = Vec::new();
    let mut start = 0;
    let mut in_quotes = false;
    let mut in_brackets = false;
    let mut escaped = false;
    for (i, c) in code.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            '[' if !in_quotes => in_brackets = true,
            ']' if !in_quotes => in_brackets = false,
            ';' if !in_quotes && !in_brackets => {
                sections.push(&code[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    sections.push(&code[start..]);
    sections
}

#[derive(Debug)]
enum Token {
    Literal(String),
    Digit(char),
    Point,
    Comma,
    Percent,
    Exponent(bool),
}

fn tokenize(section: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = section.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut text = String::new();
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    text.push(c);
                }
                tokens.push(Token::Literal(text));
            }
            '\\' => {
                if let Some(c) = chars.next() {
                    tokens.push(Token::Literal(c.to_string()));
                }
            }
            '_' => {
                chars.next();
                tokens.push(Token::Literal(" ".into()));
            }
            '*' => {
                chars.next();
            }
            '[' => {
                let mut inner = String::new();
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    inner.push(c);
                }
                if let Some(currency) = inner.strip_prefix('$') {
                    let symbol = currency.split('-').next().unwrap_or("");
                    tokens.push(Token::Literal(symbol.to_string()));
                }
                // Colours and conditions show nothing.
            }
            '0' | '#' | '?' => tokens.push(Token::Digit(c)),
            '.' => tokens.push(Token::Point),
            ',' => tokens.push(Token::Comma),
            '%' => tokens.push(Token::Percent),
            'E' | 'e' if matches!(chars.peek(), Some('+' | '-')) => {
                let plus = chars.next() == Some('+');
                tokens.push(Token::Exponent(plus));
            }
            '@' => {}
            // Dates, times and fractions are not number formats this module shows.
            'y' | 'Y' | 'm' | 'M' | 'd' | 'D' | 'h' | 'H' | 's' | 'S' | '/' => return None,
            other => tokens.push(Token::Literal(other.to_string())),
        }
    }
    Some(tokens)
}

fn format_section(value: f64, section: &str) -> Option<String> {
    let tokens = tokenize(section)?;
    let first = tokens.iter().position(|t| matches!(t, Token::Digit(_)));
    let Some(first) = first else {
        // No digits: only text (such as `"-"` for zero), shown as written.
        let text: String = tokens
            .iter()
            .filter_map(|t| match t {
                Token::Literal(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        return Some(
            if section.trim().is_empty() || section.eq_ignore_ascii_case("general") {
                general(value)
            } else {
                text
            },
        );
    };
    let last = tokens
        .iter()
        .rposition(|t| matches!(t, Token::Digit(_)))
        .unwrap_or(first);
    let mut prefix = String::new();
    let mut suffix = String::new();
    let mut percent = 0;
    for (i, token) in tokens.iter().enumerate() {
        if let Token::Literal(text) = token {
            if i < first {
                prefix.push_str(text);
            } else if i > last {
                suffix.push_str(text);
            }
        }
        if let Token::Percent = token {
            percent += 1;
            if i < first {
                prefix.push('%');
            } else {
                suffix.push('%');
            }
        }
    }
    let mut value = value * 100f64.powi(percent);
    // Commas right after the last digit scale by a thousand each.
    let mut scale = 0;
    for token in &tokens[last + 1..] {
        match token {
            Token::Comma => scale += 1,
            _ => break,
        }
    }
    value /= 1000f64.powi(scale);
    let body = &tokens[first..=last];
    let exponent = body.iter().position(|t| matches!(t, Token::Exponent(_)));
    let (mantissa, exp_part) = match exponent {
        Some(i) => (&body[..i], Some(&body[i..])),
        None => (body, None),
    };
    let point = mantissa.iter().position(|t| matches!(t, Token::Point));
    let (int_tokens, frac_tokens) = match point {
        Some(p) => (&mantissa[..p], &mantissa[p + 1..]),
        None => (mantissa, &mantissa[mantissa.len()..]),
    };
    let grouping = int_tokens.iter().any(|t| matches!(t, Token::Comma));
    let int_zeros = int_tokens
        .iter()
        .filter(|t| matches!(t, Token::Digit('0')))
        .count();
    let frac_required = frac_tokens
        .iter()
        .filter(|t| matches!(t, Token::Digit('0')))
        .count();
    let frac_total = frac_tokens
        .iter()
        .filter(|t| matches!(t, Token::Digit(_)))
        .count();
    let negative = value < 0.0;
    let mut magnitude = value.abs();
    let mut exp_text = String::new();
    if let Some(exp_tokens) = exp_part {
        let plus = matches!(exp_tokens.first(), Some(Token::Exponent(true)));
        let exp_digits = exp_tokens
            .iter()
            .filter(|t| matches!(t, Token::Digit(_)))
            .count()
            .max(1);
        let int_digits = int_tokens
            .iter()
            .filter(|t| matches!(t, Token::Digit(_)))
            .count()
            .max(1) as i32;
        let mut exp = if magnitude == 0.0 {
            0
        } else {
            magnitude.log10().floor() as i32 - (int_digits - 1)
        };
        magnitude /= 10f64.powi(exp);
        // Rounding may carry into another digit.
        let factor = 10f64.powi(frac_total as i32);
        if (magnitude * factor).round() / factor >= 10f64.powi(int_digits) {
            magnitude /= 10.0;
            exp += 1;
        }
        let sign = if exp < 0 {
            "-"
        } else if plus {
            "+"
        } else {
            ""
        };
        exp_text = format!("E{sign}{:0width$}", exp.abs(), width = exp_digits);
    }
    let fixed = format!("{magnitude:.frac_total$}");
    let (int_part, frac_part) = match fixed.split_once('.') {
        Some((i, f)) => (i.to_string(), f.to_string()),
        None => (fixed.clone(), String::new()),
    };
    let mut frac_part = frac_part;
    while frac_part.len() > frac_required && frac_part.ends_with('0') {
        frac_part.pop();
    }
    let digits = int_part.trim_start_matches('0');
    // The zeros the format asks for, put in front at once.
    let mut int_part = "0".repeat(int_zeros.saturating_sub(digits.len()));
    int_part.push_str(digits);
    if grouping {
        int_part = group_thousands(&int_part);
    }
    let mut out = String::new();
    let is_zero =
        int_part.chars().all(|c| c == '0' || c == ',') && frac_part.chars().all(|c| c == '0');
    if negative && !is_zero {
        out.push('-');
    }
    out.push_str(&prefix);
    out.push_str(&int_part);
    if point.is_some() {
        // Excel keeps the point even when no digit follows (`0.##` shows 2 as `2.`).
        out.push('.');
        out.push_str(&frac_part);
    }
    out.push_str(&exp_text);
    out.push_str(&suffix);
    Some(out)
}

fn group_thousands(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    let len = digits.len();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (len - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_excel() {
        let cases: &[(f64, &str, &str)] = &[
            (1234.5, "General", "1234.5"),
            (0.1 + 0.2, "General", "0.3"),
            (3.0, "General", "3"),
            (3.5, "0.00", "3.50"),
            (1234567.891, "#,##0.00", "1,234,567.89"),
            (1234567.891, "#,##0", "1,234,568"),
            (-1234.5, "#,##0.00", "-1,234.50"),
            (0.256, "0%", "26%"),
            (0.256, "0.00%", "25.60%"),
            (12.5, "\"$\"#,##0.00", "$12.50"),
            (12.5, "[$€-407] #,##0.00", "€ 12.50"),
            (12.5, "#,##0.00 \\€", "12.50 €"),
            (-12.5, "#,##0.00;(#,##0.00)", "(12.50)"),
            (-12.5, "#,##0.00;[Red]-#,##0.00", "-12.50"),
            (0.0, "#,##0.00;-#,##0.00;\"-\"", "-"),
            (12345.0, "0.00E+00", "1.23E+04"),
            (0.000123, "0.00E+00", "1.23E-04"),
            (1500000.0, "#,##0.0,,\"M\"", "1.5M"),
            (7.0, "000", "007"),
            (0.5, "#.00", ".50"),
            (2.5, "0.##", "2.5"),
            (2.0, "0.##", "2."),
            (7.0, &"0".repeat(255), &format!("{}7", "0".repeat(254))),
            (7.0, &"0".repeat(256), "7"),
        ];
        for (value, code, shown) in cases {
            assert_eq!(format(*value, code), *shown, "{value} as {code}");
        }
    }
}
