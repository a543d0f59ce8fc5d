//! A bank account for automatic debit: bank code, branch (agência) and account, each with an
//! optional check digit after a hyphen.

use crate::validation::{Rejection, Violations, trim_ascii};

pub const BANK_FORMAT: &str = "banco_formato";
pub const AGENCY_FORMAT: &str = "agencia_formato";
pub const ACCOUNT_FORMAT: &str = "conta_formato";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankAccount {
    /// The three-digit code of the bank (COMPE).
    pub bank: String,
    pub agency: String,
    pub account: String,
    /// Some banks' account kind (Caixa's `013`, for example).
    pub operation: Option<String>,
}

/// A bank's three-digit COMPE code (`001`), the one rule for every field that names a bank.
pub fn bank_code(input: &str) -> Result<String, Rejection> {
    let code = trim_ascii(input);
    if code.len() == 3 && code.bytes().all(|b| b.is_ascii_digit()) {
        Ok(code.to_owned())
    } else {
        Err(Rejection::new(BANK_FORMAT, "código do banco deve ter 3 dígitos"))
    }
}

/// `1234` or `1234-5` with `max` digits before the hyphen; the check character may be `X`.
fn digits_with_check(input: &str, max: usize) -> Option<String> {
    let input = trim_ascii(input).to_ascii_uppercase();
    let (number, check) = match input.split_once('-') {
        Some((n, c)) => (n.to_owned(), Some(c.to_owned())),
        None => (input.clone(), None),
    };
    let number_ok = !number.is_empty() && number.len() <= max && number.bytes().all(|b| b.is_ascii_digit());
    let check_ok = check
        .as_ref()
        .is_none_or(|c| c.len() == 1 && c.bytes().all(|b| b.is_ascii_digit() || b == b'X'));
    (number_ok && check_ok).then_some(input)
}

impl BankAccount {
    /// Checks each part given (a missing one was already reported by the caller), recording
    /// failures under `prefix` (`debitAccount.`).
    pub fn parse(
        v: &mut Violations,
        prefix: &str,
        bank: Option<&str>,
        agency: Option<&str>,
        account: Option<&str>,
        operation: Option<&str>,
    ) -> Option<Self> {
        let bank = bank.and_then(|bank| v.check(&format!("{prefix}bank"), bank_code(bank)));
        let agency = agency.and_then(|agency| {
            let parsed = digits_with_check(agency, 5).ok_or_else(|| {
                Rejection::new(
                    AGENCY_FORMAT,
                    "agência deve ter até 5 dígitos, com dígito verificador opcional (1234-5)",
                )
            });
            v.check(&format!("{prefix}agency"), parsed)
        });
        let account = account.and_then(|account| {
            let parsed = digits_with_check(account, 12).ok_or_else(|| {
                Rejection::new(
                    ACCOUNT_FORMAT,
                    "conta deve ter até 12 dígitos, com dígito verificador opcional (12345-6)",
                )
            });
            v.check(&format!("{prefix}account"), parsed)
        });
        let operation = operation.map(trim_ascii).filter(|o| !o.is_empty()).map(str::to_owned);
        Some(Self {
            bank: bank?,
            agency: agency?,
            account: account?,
            operation,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_digits_with_optional_check_characters() {
        let mut v = Violations::new();
        let account = BankAccount::parse(
            &mut v,
            "debitAccount.",
            Some("001"),
            Some("1234-5"),
            Some("12345-x"),
            Some("013"),
        )
        .unwrap();
        assert_eq!(account.account, "12345-X");
        assert!(v.is_empty());
    }

    #[test]
    fn names_each_bad_part() {
        let mut v = Violations::new();
        assert!(BankAccount::parse(&mut v, "debitAccount.", Some("1"), Some("12a4"), Some("1-23"), None).is_none());
        let found: Vec<_> = v.errors().iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            found,
            vec![
                ("debitAccount.bank", BANK_FORMAT),
                ("debitAccount.agency", AGENCY_FORMAT),
                ("debitAccount.account", ACCOUNT_FORMAT)
            ]
        );
    }
}
