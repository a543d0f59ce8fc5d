//! How Brazilian documents print values: CPF `000.000.000-00`, CNPJ `00.000.000/0000-00`, CEP
//! `00000-000`, phones `(11) 91234-5678`, money `R$ 1.412,00`, dates `dd/mm/aaaa`, and the time in
//! Brasília beside UTC. A stored value that does not parse (rows older than a rule) prints as stored.

use crate::values::{CellPhone, Cep, Cnpj, Cpf, Landline};
use chrono::{DateTime, FixedOffset, NaiveDate, Utc};

pub fn cpf(stored: &str) -> String {
    Cpf::parse(stored).map_or_else(|_| stored.to_owned(), |c| c.formatted())
}

pub fn cnpj(stored: &str) -> String {
    Cnpj::parse(stored).map_or_else(|_| stored.to_owned(), |c| c.formatted())
}

/// A party's document: a CPF by its 11 digits, otherwise a CNPJ.
pub fn cpf_or_cnpj(stored: &str) -> String {
    if stored.len() == 11 { cpf(stored) } else { cnpj(stored) }
}

pub fn cep(stored: &str) -> String {
    Cep::parse(stored).map_or_else(|_| stored.to_owned(), |c| c.formatted())
}

pub fn phone(stored: &str) -> String {
    CellPhone::parse(stored)
        .map(|p| p.formatted())
        .or_else(|_| Landline::parse(stored).map(|p| p.formatted()))
        .unwrap_or_else(|_| stored.to_owned())
}

/// `R$ 1.412,00`: thousands by dots, cents after a comma.
pub fn reais(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    let whole = (cents / 100).to_string();
    let mut grouped = String::with_capacity(whole.len() + whole.len() / 3);
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(digit);
    }
    format!("{sign}R$ {grouped},{:02}", cents % 100)
}

pub fn date(day: NaiveDate) -> String {
    day.format("%d/%m/%Y").to_string()
}

/// Brasília has kept UTC−3 all year since daylight saving ended in 2019.
pub fn brasilia() -> FixedOffset {
    FixedOffset::west_opt(3 * 3600).unwrap_or_else(|| unreachable!("3 h is a valid offset"))
}

/// `22/11/2026 13:05:09 UTC (10:05:09, horário de Brasília)`; the Brasília date is named when it differs.
pub fn instant(at: DateTime<Utc>) -> String {
    let local = at.with_timezone(&brasilia());
    let local_text = if local.date_naive() == at.date_naive() {
        local.format("%H:%M:%S").to_string()
    } else {
        local.format("%d/%m/%Y %H:%M:%S").to_string()
    };
    format!(
        "{} UTC ({local_text}, horário de Brasília)",
        at.format("%d/%m/%Y %H:%M:%S")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn documents_print_in_their_brazilian_masks() {
        assert_eq!(cpf("12345678909"), "123.456.789-09");
        assert_eq!(cnpj("11222333000181"), "11.222.333/0001-81");
        assert_eq!(cpf_or_cnpj("11222333000181"), "11.222.333/0001-81");
        assert_eq!(cpf_or_cnpj("12345678909"), "123.456.789-09");
        assert_eq!(cep("01310100"), "01310-100");
        assert_eq!(phone("11912345678"), "(11) 91234-5678");
        assert_eq!(phone("1131234567"), "(11) 3123-4567");
        assert_eq!(cpf("123"), "123", "what does not parse prints as stored");
    }

    #[test]
    fn money_groups_thousands_with_dots_and_cents_after_a_comma() {
        assert_eq!(reais(141_200), "R$ 1.412,00");
        assert_eq!(reais(5), "R$ 0,05");
        assert_eq!(reais(99_999), "R$ 999,99");
        assert_eq!(reais(123_456_789), "R$ 1.234.567,89");
        assert_eq!(reais(-141_200), "-R$ 1.412,00");
    }

    #[test]
    fn instants_show_utc_and_brasilia() {
        let at = Utc.with_ymd_and_hms(2026, 11, 22, 13, 5, 9).unwrap();
        assert_eq!(instant(at), "22/11/2026 13:05:09 UTC (10:05:09, horário de Brasília)");
        let after_midnight = Utc.with_ymd_and_hms(2026, 11, 23, 1, 0, 0).unwrap();
        assert_eq!(
            instant(after_midnight),
            "23/11/2026 01:00:00 UTC (22/11/2026 22:00:00, horário de Brasília)"
        );
        assert_eq!(date(NaiveDate::from_ymd_opt(1990, 1, 31).unwrap()), "31/01/1990");
    }
}
