//! FEBRABAN's layout for débito automático (Padrão FEBRABAN de Débito Automático, CNAB 150,
//! version 05): fixed lines of 150 characters, numbers right-aligned with zeros, text left-aligned
//! with spaces, in capitals without accents. The company sends a remessa (header `A`, one `E` per
//! debit, trailer `Z` with the record count and the total); the bank answers with a retorno whose
//! `B` records tell the customers' opt-ins and opt-outs, `F` records each debit's result by its
//! return code, `J` the remessa it processed, and `Z` again. Positions are 1-based, as the manual
//! writes them.

use chrono::NaiveDate;
use unicode_normalization::UnicodeNormalization;

/// Every record's length.
pub const LINE: usize = 150;
/// The layout version the header names (A09).
pub const VERSION: &str = "05";
/// The service the header names (A10).
const SERVICE: &str = "DEBITO AUTOMATICO";
/// Real (E07).
const CURRENCY: &str = "03";

/// A bank agreement (convênio) for débito automático: the bank, the code it gave the company, the
/// company's name as the bank registered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agreement {
    /// COMPE code, 3 digits.
    pub bank: String,
    /// Up to 20 characters.
    pub code: String,
    /// Up to 20 characters.
    pub company: String,
}

impl Agreement {
    /// `DEBIT_AGREEMENTS`: `bank:code:company` separated by `;` (`001:123456:SEGURADORA EXEMPLO`).
    pub fn parse_list(text: &str) -> Result<Vec<Agreement>, String> {
        let mut agreements: Vec<Agreement> = Vec::new();
        for entry in text.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let mut parts = entry.splitn(3, ':').map(str::trim);
            let (Some(bank), Some(code), Some(company)) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!("{entry:?}: esperado banco:convenio:empresa"));
            };
            if bank.len() != 3 || !bank.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("{entry:?}: o banco deve ter 3 dígitos"));
            }
            if code.is_empty() || code.len() > 20 || !code.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return Err(format!("{entry:?}: o convênio deve ter de 1 a 20 letras ou dígitos"));
            }
            if company.is_empty() || company.chars().count() > 20 {
                return Err(format!("{entry:?}: o nome da empresa deve ter de 1 a 20 caracteres"));
            }
            if agreements.iter().any(|a| a.bank == bank) {
                return Err(format!("{entry:?}: um convênio por banco"));
            }
            agreements.push(Agreement {
                bank: bank.to_owned(),
                code: code.to_owned(),
                company: company.to_owned(),
            });
        }
        Ok(agreements)
    }
}

/// A bank's name as the header writes it (A06).
pub fn bank_name(bank: &str) -> String {
    match bank {
        "001" => "BANCO DO BRASIL".into(),
        "033" => "SANTANDER".into(),
        "041" => "BANRISUL".into(),
        "104" => "CAIXA".into(),
        "237" => "BRADESCO".into(),
        "341" => "ITAU".into(),
        "748" => "SICREDI".into(),
        "756" => "SICOOB".into(),
        other => format!("BANCO {other}"),
    }
}

/// One debit of a remessa.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebitOrder {
    /// The customer's identification at the company (E02, up to 25): the contract's number.
    pub client: String,
    /// The branch, 4 digits (its check digit dropped).
    pub agency: String,
    /// The account with its check digit, as the bank identifies the customer (E04, up to 14).
    pub account: String,
    /// The day to debit (the due date, or the retry's).
    pub date: NaiveDate,
    /// Cents.
    pub amount: i64,
    /// What the company reads back in the return's F08 (E08, up to 60): the charge and attempt.
    pub reference: String,
}

/// A remessa for one agreement: its sequence number (NSA), its day, its debits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remessa {
    pub agreement: Agreement,
    pub nsa: u32,
    pub generated_on: NaiveDate,
    pub debits: Vec<DebitOrder>,
}

impl Remessa {
    pub fn total(&self) -> i64 {
        self.debits.iter().map(|d| d.amount).sum()
    }

    /// The file's lines: `A`, one `E` per debit, `Z`.
    pub fn lines(&self) -> Vec<String> {
        let a = &self.agreement;
        let mut lines = Vec::with_capacity(self.debits.len() + 2);
        lines.push(
            [
                "A".to_owned(),
                "1".to_owned(),
                alpha(&a.code, 20),
                alpha(&a.company, 20),
                number(&a.bank, 3),
                alpha(&bank_name(&a.bank), 20),
                self.generated_on.format("%Y%m%d").to_string(),
                number(&self.nsa.to_string(), 6),
                VERSION.to_owned(),
                alpha(SERVICE, 17),
                alpha("", 52),
            ]
            .concat(),
        );
        for d in &self.debits {
            lines.push(
                [
                    "E".to_owned(),
                    alpha(&d.client, 25),
                    number(branch(&d.agency), 4),
                    alpha(&d.account, 14),
                    d.date.format("%Y%m%d").to_string(),
                    number(&d.amount.to_string(), 15),
                    CURRENCY.to_owned(),
                    alpha(&d.reference, 60),
                    alpha("", 20),
                    "0".to_owned(),
                ]
                .concat(),
            );
        }
        lines.push(
            [
                "Z".to_owned(),
                number(&(self.debits.len() + 2).to_string(), 6),
                number(&self.total().to_string(), 17),
                alpha("", 126),
            ]
            .concat(),
        );
        lines
    }

    /// The file as banks take it: CRLF after every line.
    pub fn text(&self) -> String {
        let mut text = self.lines().join("\r\n");
        text.push_str("\r\n");
        text
    }

    /// `CNAB150_<bank>_<agreement>_<NSA>.REM`.
    pub fn file_name(&self) -> String {
        format!(
            "CNAB150_{}_{}_{:06}.REM",
            self.agreement.bank, self.agreement.code, self.nsa
        )
    }
}

/// Text as a field takes it: capitals, no accents, left-aligned, cut or padded with spaces.
fn alpha(text: &str, width: usize) -> String {
    let plain: String = text
        .nfd()
        .filter(|c| c.is_ascii())
        .map(|c| {
            if c.is_ascii_control() {
                ' '
            } else {
                c.to_ascii_uppercase()
            }
        })
        .take(width)
        .collect();
    format!("{plain:<width$}")
}

/// A branch without its check digit (`1234-5` is branch 1234).
fn branch(agency: &str) -> &str {
    agency.split('-').next().unwrap_or(agency)
}

/// Digits right-aligned with zeros (anything but digits dropped).
fn number(text: &str, width: usize) -> String {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    let digits = &digits[digits.len().saturating_sub(width)..];
    format!("{digits:0>width$}")
}

/// What the bank said of one debit, by its return code (F07).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebitResult {
    /// Debited (00; 31 on another day, a holiday where the account is).
    Paid,
    /// Not debited this time: tried again on the dunning policy's days.
    Failed,
    /// Not debited because the account holds no authorisation for it (02, 30): no more debits
    /// until a new one; the charge failed.
    AuthorizationRefused,
    /// A cancellation the company asked for, or anything else that moves no money.
    NoMove,
}

/// A return code's meaning and result (Padrão FEBRABAN, version 05).
pub fn return_code(code: &str) -> (DebitResult, &'static str) {
    use DebitResult::*;
    match code {
        "00" => (Paid, "débito efetuado"),
        "31" => (
            Paid,
            "débito efetuado em data diferente da informada (feriado na praça)",
        ),
        "01" => (Failed, "insuficiência de fundos"),
        "02" => (AuthorizationRefused, "conta corrente não cadastrada"),
        "04" => (Failed, "outras restrições"),
        "05" => (Failed, "valor do débito excede o limite aprovado"),
        "10" => (Failed, "agência em regime de encerramento"),
        "12" => (Failed, "valor inválido"),
        "13" => (Failed, "data de lançamento inválida"),
        "14" => (Failed, "agência inválida"),
        "15" => (Failed, "conta corrente inválida"),
        "18" => (Failed, "data do débito anterior à do processamento"),
        "30" => (AuthorizationRefused, "sem contrato de débito automático"),
        "96" => (NoMove, "manutenção do cadastro"),
        "97" => (NoMove, "cancelamento: não encontrado"),
        "98" => (NoMove, "cancelamento: não efetuado, fora do tempo hábil"),
        "99" => (NoMove, "cancelamento: cancelado conforme solicitação"),
        _ => (Failed, "código de retorno desconhecido"),
    }
}

/// A customer's opt-in or opt-out the bank reports (`B`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptChange {
    pub client: String,
    pub agency: String,
    pub account: String,
    pub on: NaiveDate,
    /// `true`: included (2); `false`: excluded, the authorisation revoked at the bank (1).
    pub included: bool,
}

/// One debit's result (`F`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebitReturn {
    /// The record's line in the file (1 is the header), to name it when it is refused.
    pub line: usize,
    pub client: String,
    pub agency: String,
    pub account: String,
    pub date: NaiveDate,
    pub amount: i64,
    pub code: String,
    pub reference: String,
}

/// A retorno read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retorno {
    pub bank: String,
    pub agreement: String,
    pub nsa: u32,
    pub generated_on: NaiveDate,
    pub opt_changes: Vec<OptChange>,
    pub debits: Vec<DebitReturn>,
    /// The remessas the bank confirms it processed (`J`): their NSAs.
    pub confirmed: Vec<u32>,
}

/// Why a retorno cannot be read: the whole file is refused, nothing applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("linha {line}: {reason}")]
pub struct RetornoError {
    pub line: usize,
    pub reason: String,
}

fn field(line: &str, from: usize, to: usize) -> &str {
    line.get(from - 1..to).unwrap_or("")
}

fn date_at(line: &str, number: usize, from: usize) -> Result<NaiveDate, RetornoError> {
    let text = field(line, from, from + 7);
    NaiveDate::parse_from_str(text, "%Y%m%d").map_err(|_| RetornoError {
        line: number,
        reason: format!("data inválida nas posições {from} a {}: {text:?}", from + 7),
    })
}

/// A CNAB number: zero-filled digits only. A sign, a space or a decimal point is not a number a
/// bank writes (`i64`'s parser would take `-0000000004990` as a debit returned negative).
fn number_at(line: &str, number: usize, from: usize, to: usize) -> Result<i64, RetornoError> {
    let text = field(line, from, to);
    let invalid = || RetornoError {
        line: number,
        reason: format!("número inválido nas posições {from} a {to} (só algarismos): {text:?}"),
    };
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    text.parse::<i64>().map_err(|_| invalid())
}

/// Reads a retorno: every line 150 characters, `A` (a return: A02 = 2) first and `Z` last, whose
/// record count and total must match the file's.
pub fn read_retorno(text: &str) -> Result<Retorno, RetornoError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.is_empty())
        .collect();
    let bad = |line: usize, reason: String| RetornoError { line, reason };
    for (i, line) in lines.iter().enumerate() {
        if line.chars().count() != LINE || !line.is_ascii() {
            return Err(bad(i + 1, format!("o registro deve ter {LINE} caracteres ASCII")));
        }
    }
    let (Some(header), Some(trailer)) = (lines.first(), lines.last()) else {
        return Err(bad(1, "arquivo vazio".into()));
    };
    if !header.starts_with("A2") {
        return Err(bad(
            1,
            "o primeiro registro deve ser o header A de um retorno (A2)".into(),
        ));
    }
    if lines.len() < 2 || !trailer.starts_with('Z') {
        return Err(bad(lines.len(), "o último registro deve ser o trailer Z".into()));
    }
    let mut retorno = Retorno {
        agreement: field(header, 3, 22).trim().to_owned(),
        bank: field(header, 43, 45).to_owned(),
        generated_on: date_at(header, 1, 66)?,
        nsa: u32::try_from(number_at(header, 1, 74, 79)?).unwrap_or(0),
        opt_changes: Vec::new(),
        debits: Vec::new(),
        confirmed: Vec::new(),
    };
    let mut total = 0i64;
    for (i, line) in lines.iter().enumerate().take(lines.len() - 1).skip(1) {
        let n = i + 1;
        match &line[..1] {
            "B" => retorno.opt_changes.push(OptChange {
                client: field(line, 2, 26).trim().to_owned(),
                agency: field(line, 27, 30).to_owned(),
                account: field(line, 31, 44).trim().to_owned(),
                on: date_at(line, n, 45)?,
                included: match field(line, 150, 150) {
                    "2" => true,
                    "1" => false,
                    other => return Err(bad(n, format!("código de movimento do registro B inválido: {other:?}"))),
                },
            }),
            "F" => {
                let amount = number_at(line, n, 53, 67)?;
                total += amount;
                retorno.debits.push(DebitReturn {
                    line: n,
                    client: field(line, 2, 26).trim().to_owned(),
                    agency: field(line, 27, 30).to_owned(),
                    account: field(line, 31, 44).trim().to_owned(),
                    date: date_at(line, n, 45)?,
                    amount,
                    code: field(line, 68, 69).to_owned(),
                    reference: field(line, 70, 129).trim().to_owned(),
                });
            }
            "J" => retorno
                .confirmed
                .push(u32::try_from(number_at(line, n, 2, 7)?).unwrap_or(0)),
            // Other records (C, D, H, X) change nothing here.
            _ => {}
        }
    }
    let records = number_at(trailer, lines.len(), 2, 7)?;
    if records != lines.len() as i64 {
        return Err(bad(
            lines.len(),
            format!("o trailer conta {records} registros; o arquivo tem {}", lines.len()),
        ));
    }
    let declared = number_at(trailer, lines.len(), 8, 24)?;
    if declared != total {
        return Err(bad(
            lines.len(),
            format!("o trailer soma {declared} centavos; os registros F somam {total}"),
        ));
    }
    Ok(retorno)
}

/// A return line as a bank writes it for a debit of a remessa (the sandbox's bank and the tests).
pub fn return_line(order: &DebitOrder, code: &str) -> String {
    [
        "F".to_owned(),
        alpha(&order.client, 25),
        number(branch(&order.agency), 4),
        alpha(&order.account, 14),
        order.date.format("%Y%m%d").to_string(),
        number(&order.amount.to_string(), 15),
        number(code, 2),
        alpha(&order.reference, 60),
        alpha("", 20),
        "0".to_owned(),
    ]
    .concat()
}

/// The bank's report that the customer of a remessa's debit excluded the automatic debit (`B`,
/// movement 1), as a bank writes it (the tests').
pub fn opt_out_line(order: &DebitOrder, on: NaiveDate) -> String {
    [
        "B".to_owned(),
        alpha(&order.client, 25),
        number(branch(&order.agency), 4),
        alpha(&order.account, 14),
        on.format("%Y%m%d").to_string(),
        alpha("", 97),
        "1".to_owned(),
    ]
    .concat()
}

/// The debits of a remessa's `E` lines, read back (a bank's side, the sandbox's and the tests').
pub fn read_remessa_debits(text: &str) -> Vec<DebitOrder> {
    text.lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| l.starts_with('E') && l.len() == LINE)
        .filter_map(|l| {
            Some(DebitOrder {
                client: field(l, 2, 26).trim().to_owned(),
                agency: field(l, 27, 30).to_owned(),
                account: field(l, 31, 44).trim().to_owned(),
                date: NaiveDate::parse_from_str(field(l, 45, 52), "%Y%m%d").ok()?,
                amount: field(l, 53, 67).parse().ok()?,
                reference: field(l, 70, 129).trim().to_owned(),
            })
        })
        .collect()
}

/// A whole retorno for `agreement` (header, the `F` lines, a `J` confirming `confirmed`, trailer):
/// what a bank would send back.
pub fn retorno_text(
    agreement: &Agreement,
    nsa: u32,
    on: NaiveDate,
    f_lines: &[String],
    confirmed: Option<u32>,
) -> String {
    let total: i64 = f_lines
        .iter()
        .filter_map(|l| field(l, 53, 67).parse::<i64>().ok())
        .sum();
    let mut lines = vec![
        [
            "A".to_owned(),
            "2".to_owned(),
            alpha(&agreement.code, 20),
            alpha(&agreement.company, 20),
            number(&agreement.bank, 3),
            alpha(&bank_name(&agreement.bank), 20),
            on.format("%Y%m%d").to_string(),
            number(&nsa.to_string(), 6),
            VERSION.to_owned(),
            alpha(SERVICE, 17),
            alpha("", 52),
        ]
        .concat(),
    ];
    lines.extend(f_lines.iter().cloned());
    if let Some(remessa) = confirmed {
        lines.push(
            [
                "J".to_owned(),
                number(&remessa.to_string(), 6),
                on.format("%Y%m%d").to_string(),
                number(&f_lines.len().to_string(), 6),
                number(&total.to_string(), 17),
                on.format("%Y%m%d").to_string(),
                alpha("", 104),
            ]
            .concat(),
        );
    }
    let count = lines.len() + 1;
    lines.push(
        [
            "Z".to_owned(),
            number(&count.to_string(), 6),
            number(&total.to_string(), 17),
            alpha("", 126),
        ]
        .concat(),
    );
    let mut text = lines.join("\r\n");
    text.push_str("\r\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agreement() -> Agreement {
        Agreement {
            bank: "001".into(),
            code: "123456".into(),
            company: "Seguradora Exemplo".into(),
        }
    }

    fn order(reference: &str, amount: i64) -> DebitOrder {
        DebitOrder {
            client: "42".into(),
            agency: "1234-5".into(),
            account: "12345-6".into(),
            date: NaiveDate::from_ymd_opt(2026, 12, 8).unwrap(),
            amount,
            reference: reference.into(),
        }
    }

    #[test]
    fn a_remessa_is_a_header_a_debit_per_charge_and_a_trailer_of_150_characters() {
        let remessa = Remessa {
            agreement: agreement(),
            nsa: 7,
            generated_on: NaiveDate::from_ymd_opt(2026, 12, 1).unwrap(),
            debits: vec![order("C1T1", 4990), order("C2T1", 12345)],
        };
        let lines = remessa.lines();
        assert_eq!(lines.len(), 4);
        assert!(lines.iter().all(|l| l.len() == LINE), "{lines:#?}");
        let a = &lines[0];
        assert_eq!(&a[..2], "A1");
        assert_eq!(&a[2..22], "123456              ");
        assert_eq!(&a[22..42], "SEGURADORA EXEMPLO  ");
        assert_eq!(&a[42..45], "001");
        assert_eq!(&a[45..65], "BANCO DO BRASIL     ");
        assert_eq!(&a[65..73], "20261201");
        assert_eq!(&a[73..79], "000007");
        assert_eq!(&a[79..81], "05");
        assert_eq!(&a[81..98], "DEBITO AUTOMATICO");
        let e = &lines[1];
        assert_eq!(&e[..1], "E");
        assert_eq!(&e[1..26], "42                       ");
        assert_eq!(&e[26..30], "1234", "the branch's check digit dropped");
        assert_eq!(&e[30..44], "12345-6       ");
        assert_eq!(&e[44..52], "20261208");
        assert_eq!(&e[52..67], "000000000004990");
        assert_eq!(&e[67..69], "03");
        assert_eq!(e[69..129].trim_end(), "C1T1");
        assert_eq!(&e[149..], "0");
        assert_eq!(&lines[3][..24], "Z00000400000000000017335");
        assert_eq!(remessa.file_name(), "CNAB150_001_123456_000007.REM");
        assert_eq!(read_remessa_debits(&remessa.text())[1].reference, "C2T1");
    }

    #[test]
    fn text_loses_its_accents_and_numbers_their_punctuation() {
        assert_eq!(alpha("Previdência São João", 12), "PREVIDENCIA ");
        assert_eq!(number("12.345-6", 8), "00123456");
        assert_eq!(number("123456789", 4), "6789");
    }

    #[test]
    fn a_retorno_is_read_whole_and_its_trailer_checked() {
        let paid = return_line(&order("C1T1", 4990), "00");
        let refused = return_line(&order("C2T1", 12345), "01");
        let text = retorno_text(
            &agreement(),
            3,
            NaiveDate::from_ymd_opt(2026, 12, 9).unwrap(),
            &[paid, refused],
            Some(7),
        );
        let retorno = read_retorno(&text).unwrap();
        assert_eq!(
            (retorno.bank.as_str(), retorno.agreement.as_str(), retorno.nsa),
            ("001", "123456", 3)
        );
        let out = opt_out_line(&order("C1T1", 4990), NaiveDate::from_ymd_opt(2026, 12, 9).unwrap());
        assert_eq!(out.len(), LINE);
        let with_out = retorno_text(
            &agreement(),
            4,
            NaiveDate::from_ymd_opt(2026, 12, 9).unwrap(),
            &[out],
            None,
        );
        let opted = read_retorno(&with_out).unwrap().opt_changes;
        assert_eq!((opted.len(), opted[0].included), (1, false));
        assert_eq!(retorno.debits.len(), 2);
        assert_eq!(retorno.debits[0].code, "00");
        assert_eq!(retorno.debits[1].reference, "C2T1");
        assert_eq!(retorno.debits[1].amount, 12345);
        assert_eq!(retorno.confirmed, [7]);

        let short = text.replacen("Z000005", "Z000004", 1);
        assert!(read_retorno(&short).unwrap_err().reason.contains("conta 4 registros"));
        let remessa = text.replacen("A2", "A1", 1);
        assert_eq!(read_retorno(&remessa).unwrap_err().line, 1);
        let cut = text.replacen("C2T1", "C2T", 1);
        assert!(read_retorno(&cut).unwrap_err().reason.contains("150"));
        assert_eq!(retorno.debits.iter().map(|d| d.line).collect::<Vec<_>>(), [2, 3]);
    }

    #[test]
    fn a_signed_or_spaced_amount_is_no_number_and_refuses_the_file() {
        let order = order("C1T1", 4990);
        let line = return_line(&order, "00");
        // Positions 53 to 67: the amount, 15 zero-filled digits.
        for written in [
            "-00000000004990",
            "+00000000004990",
            "       00004990",
            "00000000049,90 ",
        ] {
            let mut bad = line.clone();
            bad.replace_range(52..67, written);
            assert_eq!(bad.len(), LINE);
            let text = retorno_text(
                &agreement(),
                3,
                NaiveDate::from_ymd_opt(2026, 12, 9).unwrap(),
                &[bad],
                None,
            );
            let refused = read_retorno(&text).unwrap_err();
            assert_eq!(refused.line, 2, "{written}: {refused}");
            assert!(refused.reason.contains("só algarismos"), "{refused}");
        }
    }

    #[test]
    fn return_codes_say_what_moves() {
        assert_eq!(return_code("00").0, DebitResult::Paid);
        assert_eq!(return_code("31").0, DebitResult::Paid);
        assert_eq!(return_code("01"), (DebitResult::Failed, "insuficiência de fundos"));
        assert_eq!(return_code("30").0, DebitResult::AuthorizationRefused);
        assert_eq!(return_code("99").0, DebitResult::NoMove);
        assert_eq!(return_code("77").0, DebitResult::Failed);
    }

    #[test]
    fn agreements_are_one_per_bank_each_part_checked() {
        let list = Agreement::parse_list("001:123456:SEGURADORA EXEMPLO; 341:A9:Outra").unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1].company, "Outra");
        assert!(Agreement::parse_list("1:2:3").unwrap_err().contains("3 dígitos"));
        assert!(
            Agreement::parse_list("001:2:X;001:3:Y")
                .unwrap_err()
                .contains("um convênio por banco")
        );
        assert!(
            Agreement::parse_list("001:2")
                .unwrap_err()
                .contains("banco:convenio:empresa")
        );
        assert_eq!(Agreement::parse_list("").unwrap(), []);
    }
}
