//! The employer's report of the payroll discounts made (`sales-api charges mark-paid`): no public
//! standard reaches payroll offices, so the report is a CSV the back office builds from what the
//! employer answers, one discount a line, written as people in Brazil write it:
//!
//! ```text
//! identificador;competencia;valor;data_desconto
//! 9f0c4b7e-…;12/2026;39,90;05/12/2026
//! ```
//!
//! `competencia` is the month of the charge's due date; `valor` is in reais with two decimals.

use chrono::NaiveDate;

/// The header a report starts with.
pub const HEADER: &str = "identificador;competencia;valor;data_desconto";

/// One discount the employer reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportedDiscount {
    /// The proposal's `identificador`.
    pub identifier: String,
    /// The first day of the month of the charge's due date.
    pub month: NaiveDate,
    /// Cents.
    pub amount: i64,
    pub discounted_on: NaiveDate,
}

/// A line that cannot be read, with its number (1 for the header) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("linha {line}: {reason}")]
pub struct LineError {
    pub line: usize,
    pub reason: String,
}

/// One line of a report as read: its number, and its discount or why it was refused.
pub type ReadLine = (usize, Result<ReportedDiscount, LineError>);

/// Every line of a report read, in order: each discount, or why its line was refused. A report
/// without the header is refused whole.
pub fn read_report(text: &str) -> Result<Vec<ReadLine>, LineError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    match lines.next() {
        Some((_, header)) if header.trim_start_matches('\u{feff}').trim() == HEADER => {}
        _ => {
            return Err(LineError {
                line: 1,
                reason: format!("o relatório deve começar pelo cabeçalho {HEADER}"),
            });
        }
    }
    Ok(lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(number, line)| {
            (
                number,
                read_line(line).map_err(|reason| LineError { line: number, reason }),
            )
        })
        .collect())
}

fn read_line(line: &str) -> Result<ReportedDiscount, String> {
    let fields: Vec<&str> = line.split(';').map(str::trim).collect();
    let [identifier, month, amount, day] = fields[..] else {
        return Err(format!(
            "esperados 4 campos separados por ';', encontrados {}",
            fields.len()
        ));
    };
    if identifier.is_empty() || identifier.len() > 64 {
        return Err("identificador ausente ou longo demais".into());
    }
    let month = NaiveDate::parse_from_str(&format!("01/{month}"), "%d/%m/%Y")
        .map_err(|_| format!("competencia deve ser MM/AAAA: {month:?}"))?;
    let amount =
        reais(amount).ok_or_else(|| format!("valor deve estar em reais com duas casas (39,90): {amount:?}"))?;
    let discounted_on = NaiveDate::parse_from_str(day, "%d/%m/%Y")
        .map_err(|_| format!("data_desconto deve ser DD/MM/AAAA: {day:?}"))?;
    Ok(ReportedDiscount {
        identifier: identifier.to_owned(),
        month,
        amount,
        discounted_on,
    })
}

/// `1.234,56` or `39,90` in cents; anything else (no decimals, a point for the decimals) `None`.
fn reais(text: &str) -> Option<i64> {
    let (whole, cents) = text.split_once(',')?;
    let whole: String = whole.chars().filter(|c| *c != '.').collect();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(&whole) || cents.len() != 2 || !digits(cents) || whole.len() > 12 {
        return None;
    }
    Some(whole.parse::<i64>().ok()? * 100 + cents.parse::<i64>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_reads_each_discount_and_names_each_bad_line() {
        let report = format!(
            "{HEADER}\r\nabc-1;12/2026;39,90;05/12/2026\n\nabc-2;13/2026;39,90;05/12/2026\nabc-3;12/2026;39.90;05/12/2026\nabc-4;12/2026;1.039,90;2026-12-05\nabc-5;12/2026\n"
        );
        let lines = read_report(&report).unwrap();
        assert_eq!(
            lines[0],
            (
                2,
                Ok(ReportedDiscount {
                    identifier: "abc-1".into(),
                    month: NaiveDate::from_ymd_opt(2026, 12, 1).unwrap(),
                    amount: 3990,
                    discounted_on: NaiveDate::from_ymd_opt(2026, 12, 5).unwrap(),
                })
            )
        );
        let refused: Vec<(usize, String)> = lines[1..]
            .iter()
            .map(|(n, r)| (*n, r.clone().unwrap_err().reason))
            .collect();
        assert_eq!(refused.len(), 4);
        assert_eq!(refused[0].0, 4);
        assert!(refused[0].1.starts_with("competencia"), "{refused:?}");
        assert!(refused[1].1.starts_with("valor"), "{refused:?}");
        assert!(refused[2].1.starts_with("data_desconto"), "{refused:?}");
        assert!(refused[3].1.contains("4 campos"), "{refused:?}");
    }

    #[test]
    fn a_report_without_its_header_is_refused_whole() {
        let refused = read_report("abc-1;12/2026;39,90;05/12/2026\n").unwrap_err();
        assert_eq!(refused.line, 1);
        assert!(refused.reason.contains(HEADER));
    }

    #[test]
    fn amounts_are_reais_with_two_decimals() {
        assert_eq!(reais("39,90"), Some(3990));
        assert_eq!(reais("1.234,56"), Some(123456));
        assert_eq!(reais("0,05"), Some(5));
        assert_eq!(reais("39"), None);
        assert_eq!(reais("39,9"), None);
        assert_eq!(reais("-1,00"), None);
    }
}
