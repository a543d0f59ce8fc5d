//! The CGU's list of politically exposed persons (Circular SUSEP 612/2020, art. 4; the Portal da
//! Transparência's monthly `AAAAMM_PEP.csv`), read as published: `;`-separated, one header line,
//! nine columns read by position — CPF (masked `***.123.456-**`), Nome_PEP, Sigla_Função,
//! Descrição_Função, Nível_Função, Nome_Órgão, Data_Início_Exercício, Data_Fim_Exercício,
//! Data_Fim_Carência — in UTF-8 or Latin-1, as the portal has published both.
//!
//! A file that is not that list (another header, a line with another count of columns, text that
//! is no CSV, no person at all) is refused whole: importing it would replace the list in force
//! with a wrong one. A person's line whose values do not read (a CPF not masked as the portal
//! masks it, a date not `dd/mm/aaaa`) is refused alone and reported with its line number.

use super::names::match_key;
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

/// The columns of the CGU's file, in its order.
pub const COLUMNS: [&str; 9] = [
    "CPF",
    "Nome_PEP",
    "Sigla_Função",
    "Descrição_Função",
    "Nível_Função",
    "Nome_Órgão",
    "Data_Início_Exercício",
    "Data_Fim_Exercício",
    "Data_Fim_Carência",
];

/// One exercise of a public role by a politically exposed person, as the list gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PepEntry {
    /// The six CPF digits the portal shows (`***.123.456-**` → `123456`): the CPF's 4th to 9th.
    pub cpf_middle: String,
    /// The name as published.
    pub name: String,
    /// The name as it is matched ([`match_key`]).
    pub name_key: String,
    pub role_acronym: String,
    pub role: String,
    pub role_level: String,
    pub body: String,
    pub started_on: NaiveDate,
    /// When the role ended (none while it lasts, or "Não informada").
    pub ended_on: Option<NaiveDate>,
    /// The end of the five years after the role in which the person is still exposed (art. 4).
    pub exposed_until: Option<NaiveDate>,
}

/// A person's line that was not taken, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedLine {
    /// The line's number in the file (the header is line 1).
    pub line: u64,
    pub reason: String,
}

/// The list read from a file: the entries taken and the lines refused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PepList {
    pub entries: Vec<PepEntry>,
    pub refused: Vec<RefusedLine>,
}

impl PepList {
    /// The person's lines read (taken or refused; the header aside).
    pub fn lines_read(&self) -> usize {
        self.entries.len() + self.refused.len()
    }
}

/// Why a file was refused whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PepFileError {
    #[error("o arquivo não é a lista de PEP da CGU: {0}")]
    NotTheList(String),
    #[error("linha {line}: {reason}; o arquivo foi recusado inteiro")]
    Malformed { line: u64, reason: String },
    #[error("o arquivo não tem nenhuma pessoa que se possa ler; a lista em vigor foi mantida")]
    Empty,
}

/// The file's text: UTF-8 when it is (a byte-order mark aside), else Latin-1 (as the portal's
/// ISO-8859-1 files, read as browsers read that label: windows-1252).
fn decoded(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0,
    }
}

/// Reads the CGU's file (see the module's documentation).
pub fn read(bytes: &[u8]) -> Result<PepList, PepFileError> {
    let text = decoded(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(true)
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| PepFileError::NotTheList(format!("o cabeçalho não pôde ser lido ({e})")))?
        .clone();
    let first_two: Vec<String> = header.iter().take(2).map(match_key).collect();
    if header.len() != COLUMNS.len() || first_two != ["CPF", "NOME PEP"] {
        return Err(PepFileError::NotTheList(format!(
            "o cabeçalho deve ter as {} colunas {} (tem {}: {})",
            COLUMNS.len(),
            COLUMNS.join(";"),
            header.len(),
            header.iter().collect::<Vec<_>>().join(";")
        )));
    }
    let mut list = PepList::default();
    for record in reader.records() {
        let record = record.map_err(|e| PepFileError::Malformed {
            line: e.position().map(|p| p.line()).unwrap_or_default(),
            reason: format!("texto que não é CSV ({e})"),
        })?;
        let line = record.position().map(|p| p.line()).unwrap_or_default();
        if record.iter().all(|field| field.trim().is_empty()) {
            continue;
        }
        if record.len() != COLUMNS.len() {
            return Err(PepFileError::Malformed {
                line,
                reason: format!("{} colunas em vez de {}", record.len(), COLUMNS.len()),
            });
        }
        let field = |i: usize| record.get(i).unwrap_or_default().trim();
        match entry([
            field(0),
            field(1),
            field(2),
            field(3),
            field(4),
            field(5),
            field(6),
            field(7),
            field(8),
        ]) {
            Ok(entry) => list.entries.push(entry),
            Err(reason) => list.refused.push(RefusedLine { line, reason }),
        }
    }
    if list.entries.is_empty() {
        return Err(PepFileError::Empty);
    }
    Ok(list)
}

/// One person's line, or why it is refused.
fn entry(fields: [&str; 9]) -> Result<PepEntry, String> {
    let [cpf, name, acronym, role, level, body, started, ended, exposed] = fields;
    let cpf_middle = masked_cpf_middle(cpf).ok_or_else(|| format!("CPF \"{cpf}\" fora do padrão ***.000.000-**"))?;
    let name_key = match_key(name);
    if name_key.is_empty() {
        return Err("Nome_PEP vazio".to_owned());
    }
    let started_on =
        date(started).ok_or_else(|| format!("Data_Início_Exercício \"{started}\" não é uma data dd/mm/aaaa"))?;
    Ok(PepEntry {
        cpf_middle,
        name: name.to_owned(),
        name_key,
        role_acronym: acronym.to_owned(),
        role: role.to_owned(),
        role_level: level.to_owned(),
        body: body.to_owned(),
        started_on,
        ended_on: optional_date(ended, "Data_Fim_Exercício")?,
        exposed_until: optional_date(exposed, "Data_Fim_Carência")?,
    })
}

/// `***.123.456-**` → `123456`.
fn masked_cpf_middle(cpf: &str) -> Option<String> {
    let bytes = cpf.as_bytes();
    let shape = bytes.len() == 14
        && &bytes[..4] == b"***."
        && bytes[7] == b'.'
        && &bytes[11..] == b"-**"
        && bytes[4..7].iter().chain(&bytes[8..11]).all(u8::is_ascii_digit);
    shape.then(|| format!("{}{}", &cpf[4..7], &cpf[8..11]))
}

fn date(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%d/%m/%Y").ok()
}

/// An end date the list may leave out: empty, or a text with no digit ("Não informada").
fn optional_date(text: &str, column: &str) -> Result<Option<NaiveDate>, String> {
    if !text.chars().any(|c| c.is_ascii_digit()) {
        return Ok(None);
    }
    date(text)
        .map(Some)
        .ok_or_else(|| format!("{column} \"{text}\" não é uma data dd/mm/aaaa"))
}

/// A load of the list, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PepImport {
    pub id: i64,
    /// The file's name as given.
    pub source: String,
    /// The file's SHA-256 (hex): which publication is in force.
    pub sha256: String,
    pub lines_read: usize,
    pub entries: usize,
    pub refused: usize,
    pub imported_at: DateTime<Utc>,
    pub imported_by: String,
}

/// Where the list in force is kept.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PepListStore: Send + Sync {
    /// Replaces the list in force by `list`, in one transaction, and records the load.
    async fn replace(&self, list: &PepList, source: &str, sha256: &str, by: &str) -> Result<PepImport, StoreError>;
}

/// Why an import did not replace the list in force.
#[derive(Debug, thiserror::Error)]
pub enum PepImportError {
    #[error(transparent)]
    File(#[from] PepFileError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an import did: the load recorded, and each line refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PepImportReport {
    pub import: PepImport,
    pub refused: Vec<RefusedLine>,
}

/// `sales-api kyc pep import FILE`: reads the CGU's file `bytes` (named `source`) and, when it is
/// the list, replaces the list in force with it in one transaction; a file refused whole leaves
/// the list in force as it was.
pub async fn import(
    store: &dyn PepListStore,
    bytes: &[u8],
    source: &str,
    by: &str,
) -> Result<PepImportReport, PepImportError> {
    use sha2::Digest;
    let list = read(bytes)?;
    let sha256 = hex::encode(sha2::Sha256::digest(bytes));
    let import = store.replace(&list, source, &sha256, by).await?;
    tracing::info!(entries = import.entries, refused = import.refused, "PEP list replaced");
    Ok(PepImportReport {
        import,
        refused: list.refused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "CPF;Nome_PEP;Sigla_Função;Descrição_Função;Nível_Função;Nome_Órgão;Data_Início_Exercício;Data_Fim_Exercício;Data_Fim_Carência\n";

    fn file(lines: &[&str]) -> String {
        format!("{HEADER}{}", lines.join("\n"))
    }

    #[test]
    fn a_published_file_is_read_by_position_with_its_end_dates_optional() {
        let list = read(
            file(&[
                "***.982.247-**;JOSÉ DA SILVA;DAS-6;DIRETOR;6;MINISTÉRIO DA FAZENDA;01/02/2020;31/12/2022;31/12/2027",
                "\"***.111.222-**\";\"MARIA SOUZA\";\"VER\";\"VEREADOR\";\"\";\"MUN. DE PARNAMIRIM-RN\";\"01/01/2021\";\"Não informada\";\"\"",
            ])
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(list.lines_read(), 2);
        assert!(list.refused.is_empty());
        let first = &list.entries[0];
        assert_eq!(first.cpf_middle, "982247");
        assert_eq!(first.name, "JOSÉ DA SILVA");
        assert_eq!(first.name_key, "JOSE DA SILVA");
        assert_eq!(first.body, "MINISTÉRIO DA FAZENDA");
        assert_eq!(first.exposed_until, NaiveDate::from_ymd_opt(2027, 12, 31));
        let second = &list.entries[1];
        assert_eq!(second.cpf_middle, "111222");
        assert_eq!(second.ended_on, None);
        assert_eq!(second.exposed_until, None);
        assert_eq!(second.role_level, "");
    }

    #[test]
    fn latin_1_and_utf_8_read_the_same() {
        let text = file(&["***.982.247-**;JOSÉ DA CONCEIÇÃO;DAS;DIRETOR;6;ÓRGÃO;01/02/2020;;"]);
        let (latin1, _, unmappable) = encoding_rs::WINDOWS_1252.encode(&text);
        assert!(!unmappable);
        assert_ne!(latin1.as_ref(), text.as_bytes());
        let from_latin1 = read(&latin1).unwrap();
        let with_bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
        assert_eq!(from_latin1, read(&with_bom).unwrap());
        assert_eq!(from_latin1.entries[0].name, "JOSÉ DA CONCEIÇÃO");
    }

    #[test]
    fn a_line_whose_values_do_not_read_is_refused_alone_with_its_number() {
        let list = read(
            file(&[
                "***.982.247-**;JOSE;DAS;DIRETOR;6;ORGAO;01/02/2020;;",
                "529.982.247-25;SEM MASCARA;DAS;DIRETOR;6;ORGAO;01/02/2020;;",
                "***.982.247-**;DATA RUIM;DAS;DIRETOR;6;ORGAO;2020-02-01;;",
                "***.982.247-**;FIM RUIM;DAS;DIRETOR;6;ORGAO;01/02/2020;31/02/2022;",
                "***.982.247-**;   ;DAS;DIRETOR;6;ORGAO;01/02/2020;;",
            ])
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(list.entries.len(), 1);
        let lines: Vec<u64> = list.refused.iter().map(|r| r.line).collect();
        assert_eq!(lines, [3, 4, 5, 6]);
        assert!(list.refused[0].reason.contains("CPF"), "{:?}", list.refused);
        assert!(list.refused[1].reason.contains("Data_Início_Exercício"));
        assert!(list.refused[2].reason.contains("Data_Fim_Exercício"));
        assert!(list.refused[3].reason.contains("Nome_PEP"));
    }

    #[test]
    fn a_file_that_is_not_the_list_is_refused_whole() {
        let other_header = "CPF;NOME;CARGO\n***.982.247-**;JOSE;DIRETOR";
        assert!(matches!(
            read(other_header.as_bytes()),
            Err(PepFileError::NotTheList(_))
        ));
        let cut = file(&[
            "***.982.247-**;JOSE;DAS;DIRETOR;6;ORGAO;01/02/2020;;",
            "***.111.222-**;MARIA;DAS;DIRETOR",
        ]);
        assert_eq!(
            read(cut.as_bytes()),
            Err(PepFileError::Malformed {
                line: 3,
                reason: "4 colunas em vez de 9".to_owned()
            })
        );
        assert_eq!(read(HEADER.as_bytes()), Err(PepFileError::Empty));
        let none_readable = file(&["529.982.247-25;SEM MASCARA;DAS;DIRETOR;6;ORGAO;01/02/2020;;"]);
        assert_eq!(read(none_readable.as_bytes()), Err(PepFileError::Empty));
        assert!(matches!(read(b"\x00\x01\x02"), Err(PepFileError::NotTheList(_))));
    }

    #[tokio::test]
    async fn an_import_replaces_the_list_only_with_a_file_that_is_the_list() {
        let mut store = MockPepListStore::new();
        store
            .expect_replace()
            .withf(|list, source, sha256, by| {
                list.entries.len() == 1 && source == "202611_PEP.csv" && sha256.len() == 64 && by == "bo@demo.com.br"
            })
            .times(1)
            .returning(|list, source, sha256, by| {
                Ok(PepImport {
                    id: 7,
                    source: source.to_owned(),
                    sha256: sha256.to_owned(),
                    lines_read: list.lines_read(),
                    entries: list.entries.len(),
                    refused: list.refused.len(),
                    imported_at: chrono::DateTime::UNIX_EPOCH,
                    imported_by: by.to_owned(),
                })
            });
        let good = file(&[
            "***.982.247-**;JOSE;DAS;DIRETOR;6;ORGAO;01/02/2020;;",
            "***.982.247-**;DATA RUIM;DAS;DIRETOR;6;ORGAO;2020-02-01;;",
        ]);
        let report = import(&store, good.as_bytes(), "202611_PEP.csv", "bo@demo.com.br")
            .await
            .unwrap();
        assert_eq!((report.import.entries, report.import.refused), (1, 1));
        assert_eq!(report.refused[0].line, 3);
        // A file refused whole never reaches the store (its mock would panic on a second call).
        let cut = file(&["***.982.247-**;JOSE;DAS"]);
        assert!(matches!(
            import(&store, cut.as_bytes(), "x.csv", "bo@demo.com.br").await,
            Err(PepImportError::File(PepFileError::Malformed { .. }))
        ));
    }
}
