//! Requests for documents (issue 45): the back office asks the proposal's seller for documents
//! (`POST /proposal/{identificador}/pending`), which suspends the acceptance clock; the seller
//! answers (`POST /proposal/{identificador}/pending/{id}/answer`) with a note and files, which
//! resumes it, the deadline moved by the time it stood suspended.
//!
//! Decision 289 (issue 69): a request carries a reason category, and only documentation the
//! product lets its sellers collect goes to the seller; every other request goes straight to the
//! proponent by a one-time link mailed to them (`/documentos/{token}`), and a seller reads of it
//! only that documents were asked and answered.

use crate::input::{Field, Reading};
use crate::validation::{Rejection, Violations, codes};
use crate::values::ReasonCategory;
use base64::Engine;
use sha2::{Digest, Sha256};

/// The most items one request names.
pub const MAX_ITEMS: usize = 20;
/// The longest item, in characters.
pub const ITEM_MAX_CHARS: usize = 200;
/// The longest note (the request's or the answer's), in characters.
pub const NOTE_MAX_CHARS: usize = 1000;
/// The most files one answer carries.
pub const MAX_FILES: usize = 3;
/// The largest file, in bytes (5 MiB).
pub const MAX_FILE_BYTES: usize = 5 * 1024 * 1024;
/// The longest file name, in characters.
pub const FILE_NAME_MAX_CHARS: usize = 200;
/// The largest answer body: its files in base64 and room for the rest.
pub const MAX_ANSWER_BODY_BYTES: usize = MAX_FILES * MAX_FILE_BYTES.div_ceil(3) * 4 + 64 * 1024;

crate::wire_body! {
    /// `POST /proposal/{identificador}/pending`'s body.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "Pedido de documentos da retaguarda: suspende o prazo de aceitação até a resposta do vendedor."
        )
    )]
    pub struct PendingBody => PendingMembers {
        /// O que falta, um item por documento (de 1 a 20 itens, cada um com até 200 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>, example = json!(["Comprovante de residência"])))]
        items: Field<Vec<Field<String>>>,
        /// Uma observação a quem responde (até 1000 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Enviar frente e verso"))]
        note: Field<String>,
        /// Por que os documentos são pedidos, da lista fechada de `reasonCategory` (ausente:
        /// `documentacao`). Só a documentação que o produto deixa com o vendedor é pedida a ele;
        /// qualquer outra (`saude`, …) vai direto ao proponente, por um link enviado ao seu e-mail.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "documentacao"))]
        reason_category as "reasonCategory": Field<String>,
    }
}

crate::wire_body! {
    /// `POST /proposal/{identificador}/pending/{id}/answer`'s body.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "A resposta do vendedor a um pedido de documentos: retoma o prazo de aceitação, adiado pelo tempo suspenso."
        )
    )]
    pub struct AnswerBody => AnswerMembers {
        /// A resposta (de 1 a 1000 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Segue o comprovante"))]
        note: Field<String>,
        /// Até 3 arquivos PDF, JPEG ou PNG de até 5 MiB cada (o tipo é lido do conteúdo).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<FileBody>>))]
        files: Field<Vec<Field<FileBody>>>,
    }
}

crate::wire_body! {
    /// A file of an answer.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Um arquivo: o nome e o conteúdo em base64.")
    )]
    pub struct FileBody => FileMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "comprovante.pdf"))]
        name: Field<String>,
        /// O conteúdo em base64 (RFC 4648, com preenchimento).
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
        content: Field<String>,
    }
}

/// A request for documents as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentsRequest {
    pub items: Vec<String>,
    pub note: Option<String>,
    pub category: ReasonCategory,
}

/// Who answers a request for documents (decision 289).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PendingRecipient {
    /// The proposal's seller, through `POST /proposal/{identificador}/pending/{id}/answer`.
    Seller,
    /// The proponent, through the one-time link mailed to them.
    Proponent,
}

impl PendingRecipient {
    pub const ALL: [PendingRecipient; 2] = [PendingRecipient::Seller, PendingRecipient::Proponent];

    pub fn as_str(self) -> &'static str {
        match self {
            PendingRecipient::Seller => "vendedor",
            PendingRecipient::Proponent => "proponente",
        }
    }

    /// A value read back from `table.column`.
    pub fn from_stored(
        value: &str,
        table: &'static str,
        column: &'static str,
    ) -> Result<Self, crate::values::StoredValueError> {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == value)
            .ok_or_else(|| crate::values::StoredValueError::new(table, column, value))
    }

    /// Who answers a request of `category` on a product that does (`seller_documents`) or does
    /// not let its sellers collect documentation: the seller only documentation it may collect;
    /// anything else, health above all (LGPD art. 11), the proponent themself.
    pub fn of(category: ReasonCategory, seller_documents: bool) -> Self {
        if seller_documents && category == ReasonCategory::Documentation {
            PendingRecipient::Seller
        } else {
            PendingRecipient::Proponent
        }
    }
}

/// Who answered, in an answer the proponent gave through their link (never their e-mail: the
/// history and route 7 name the role).
pub const PROPONENT_ACTOR: &str = "proponente";

/// The most characters of the proponent's note on the documents page.
pub const PROPONENT_NOTE_MAX_CHARS: usize = NOTE_MAX_CHARS;

/// An answer as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingAnswerInput {
    pub note: String,
    pub files: Vec<UploadedFile>,
}

/// A file read and checked: its type by its content, its hash.
#[derive(Clone, PartialEq, Eq)]
pub struct UploadedFile {
    pub name: String,
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
    pub sha256: String,
}

impl std::fmt::Debug for UploadedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A customer's document: never its bytes in a log.
        f.debug_struct("UploadedFile")
            .field("content_type", &self.content_type)
            .field("size", &self.bytes.len())
            .field("sha256", &self.sha256)
            .finish()
    }
}

/// The type of a file by its first bytes: PDF, JPEG or PNG; anything else is refused whatever its
/// name says.
pub fn content_type_of(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"%PDF-") {
        Some("application/pdf")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some("image/png")
    } else {
        None
    }
}

fn item(text: &str) -> Result<String, Rejection> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Rejection::new(codes::REQUIRED, "o item não pode ser vazio"));
    }
    if text.contains('\0') {
        return Err(Rejection::new(
            codes::INVALID_VALUE,
            "o item não pode conter o caractere nulo",
        ));
    }
    if text.chars().nth(ITEM_MAX_CHARS).is_some() {
        return Err(Rejection::new(
            codes::TOO_LONG,
            format!("o item deve ter no máximo {ITEM_MAX_CHARS} caracteres"),
        ));
    }
    Ok(text.to_owned())
}

impl PendingBody {
    pub fn read(self) -> Result<DocumentsRequest, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let items = r.parse_list(m.items.0, m.items.1, true, item);
        if items.as_ref().is_some_and(|items| items.len() > MAX_ITEMS) {
            r.add(
                m.items.0,
                codes::TOO_MANY,
                format!("{} deve ter no máximo {MAX_ITEMS} itens", m.items.0),
            );
        }
        let note = r.optional_text_within(m.note.0, m.note.1, NOTE_MAX_CHARS);
        let category = r
            .parse_optional(m.reason_category.0, m.reason_category.1, ReasonCategory::parse)
            .unwrap_or(ReasonCategory::Documentation);
        match items {
            Some(items) if v.is_empty() => Ok(DocumentsRequest { items, note, category }),
            _ => Err(v),
        }
    }
}

impl AnswerBody {
    pub fn read(self) -> Result<PendingAnswerInput, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let note = r.text_within(m.note.0, m.note.1, NOTE_MAX_CHARS);
        let (files_name, files) = m.files;
        let files = match files {
            Field::Missing => Some(Vec::new()),
            files => r.objects(files_name, files, read_file),
        };
        if files.as_ref().is_some_and(|files| files.len() > MAX_FILES) {
            r.add(
                files_name,
                codes::TOO_MANY,
                format!("{files_name} deve ter no máximo {MAX_FILES} arquivos"),
            );
        }
        match (note, files) {
            (Some(note), Some(files)) if v.is_empty() => Ok(PendingAnswerInput { note, files }),
            _ => Err(v),
        }
    }
}

/// A file's name and content: the content base64, at most [`MAX_FILE_BYTES`] once decoded, of a
/// type read from its first bytes.
fn read_file(file: FileBody, r: &mut Reading<'_>) -> Option<UploadedFile> {
    let FileMembers {
        name: (name_member, name),
        content: (content_member, content),
    } = file.named();
    let name = r.text_within(name_member, name, FILE_NAME_MAX_CHARS);
    if name
        .as_deref()
        .is_some_and(|n| n.chars().any(|c| c.is_control() || c == '/' || c == '\\'))
    {
        r.add(
            name_member,
            codes::INVALID_VALUE,
            format!("{name_member} não pode conter barras nem caracteres de controle"),
        );
        return None;
    }
    let content = r.string(content_member, content)?;
    // Refused by its length before it is decoded: a huge body costs no decoding.
    if content.len() > MAX_FILE_BYTES.div_ceil(3) * 4 {
        r.add(
            content_member,
            codes::TOO_LONG,
            format!("o arquivo deve ter no máximo {} MiB", MAX_FILE_BYTES / (1024 * 1024)),
        );
        return None;
    }
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(content.trim()) else {
        r.add(
            content_member,
            codes::INVALID_VALUE,
            format!("{content_member} deve ser base64 (RFC 4648)"),
        );
        return None;
    };
    match checked_content(bytes) {
        Ok((content_type, bytes, sha256)) => Some(UploadedFile {
            name: name?,
            content_type,
            bytes,
            sha256,
        }),
        Err(rejection) => {
            r.add(content_member, rejection.code, rejection.message);
            None
        }
    }
}

/// A file's bytes as an answer takes them: 1 byte to [`MAX_FILE_BYTES`], a PDF, JPEG or PNG by
/// its first bytes; with its type and SHA-256.
fn checked_content(bytes: Vec<u8>) -> Result<(&'static str, Vec<u8>, String), Rejection> {
    if bytes.is_empty() || bytes.len() > MAX_FILE_BYTES {
        return Err(Rejection::new(
            codes::INVALID_VALUE,
            format!("o arquivo deve ter de 1 byte a {} MiB", MAX_FILE_BYTES / (1024 * 1024)),
        ));
    }
    let Some(content_type) = content_type_of(&bytes) else {
        return Err(Rejection::new(
            codes::INVALID_VALUE,
            "o arquivo deve ser PDF, JPEG ou PNG",
        ));
    };
    let sha256 = hex::encode(Sha256::digest(&bytes));
    Ok((content_type, bytes, sha256))
}

/// What the proponent sent through the documents page (a form, not JSON): an optional note and
/// one to [`MAX_FILES`] files, as their names and bytes arrived. Each bad part is named as the
/// form names it (`nota`, `arquivos[0]`, …).
pub fn proponent_answer(note: Option<String>, files: Vec<(String, Vec<u8>)>) -> Result<PendingAnswerInput, Violations> {
    let mut v = Violations::new();
    let note = note.map(|n| n.trim().to_owned()).unwrap_or_default();
    if note.chars().nth(PROPONENT_NOTE_MAX_CHARS).is_some() {
        v.add(
            "nota",
            codes::TOO_LONG,
            format!("a observação deve ter no máximo {PROPONENT_NOTE_MAX_CHARS} caracteres"),
        );
    }
    if note.contains('\0') {
        v.add(
            "nota",
            codes::INVALID_VALUE,
            "a observação não pode conter o caractere nulo",
        );
    }
    if files.is_empty() {
        v.add("arquivos", codes::REQUIRED, "envie ao menos um arquivo");
    }
    if files.len() > MAX_FILES {
        v.add(
            "arquivos",
            codes::TOO_MANY,
            format!("envie no máximo {MAX_FILES} arquivos"),
        );
    }
    let mut checked = Vec::new();
    for (index, (name, bytes)) in files.into_iter().take(MAX_FILES).enumerate() {
        let field = format!("arquivos[{index}]");
        let name = name.trim().to_owned();
        if name.is_empty()
            || name.chars().nth(FILE_NAME_MAX_CHARS).is_some()
            || name.chars().any(|c| c.is_control() || c == '/' || c == '\\')
        {
            v.add(
                &field,
                codes::INVALID_VALUE,
                format!("o nome do arquivo deve ter de 1 a {FILE_NAME_MAX_CHARS} caracteres, sem barras"),
            );
            continue;
        }
        match checked_content(bytes) {
            Ok((content_type, bytes, sha256)) => checked.push(UploadedFile {
                name,
                content_type,
                bytes,
                sha256,
            }),
            Err(rejection) => v.add(&field, rejection.code, format!("{name}: {}", rejection.message)),
        }
    }
    v.into_result()?;
    Ok(PendingAnswerInput { note, files: checked })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::body;
    use serde_json::json;

    fn fields(v: &Violations) -> Vec<String> {
        v.errors().iter().map(|e| e.field.clone()).collect()
    }

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn a_files_type_is_read_from_its_content_never_its_name() {
        assert_eq!(content_type_of(b"%PDF-1.7\n"), Some("application/pdf"));
        assert_eq!(content_type_of(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(content_type_of(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(content_type_of(b"MZ\x90\x00"), None);
        let answer = body::<AnswerBody>(json!({"note": "Segue", "files": [
            {"name": "comprovante.pdf", "content": b64(b"MZ executable")},
        ]}))
        .unwrap()
        .read()
        .unwrap_err();
        assert_eq!(fields(&answer), ["files[0].content"]);
    }

    #[test]
    fn an_answer_reads_its_note_and_files_with_their_hashes() {
        let answer = body::<AnswerBody>(json!({"note": " Segue o comprovante ", "files": [
            {"name": "c.pdf", "content": b64(b"%PDF-1.7 x")},
        ]}))
        .unwrap()
        .read()
        .unwrap();
        assert_eq!(answer.note, "Segue o comprovante");
        assert_eq!(answer.files[0].content_type, "application/pdf");
        assert_eq!(answer.files[0].sha256, hex::encode(Sha256::digest(b"%PDF-1.7 x")));
        let without_files = body::<AnswerBody>(json!({"note": "Sem anexos"}))
            .unwrap()
            .read()
            .unwrap();
        assert!(without_files.files.is_empty());
    }

    #[test]
    fn each_bad_member_is_named() {
        let too_big = vec![b'%'; MAX_FILE_BYTES + 1];
        let refused = body::<AnswerBody>(json!({"files": [
            {"name": "a/b.pdf", "content": b64(b"%PDF-")},
            {"name": "big.pdf", "content": b64(&too_big)},
            {"name": "x.png", "content": "não é base64"},
            "texto",
        ]}))
        .unwrap()
        .read()
        .unwrap_err();
        assert_eq!(
            fields(&refused),
            [
                "note",
                "files[0].name",
                "files[1].content",
                "files[2].content",
                "files[3]"
            ]
        );
        let refused = body::<PendingBody>(json!({"items": [], "note": 3}))
            .unwrap()
            .read()
            .unwrap_err();
        assert_eq!(fields(&refused), ["items", "note"]);
        let many: Vec<String> = (0..=MAX_ITEMS).map(|i| format!("Documento {i}")).collect();
        let refused = body::<PendingBody>(json!({"items": many})).unwrap().read().unwrap_err();
        assert_eq!(fields(&refused), ["items"]);
        let refused = body::<PendingBody>(json!({"items": ["ok", " ", "x".repeat(201)]}))
            .unwrap()
            .read()
            .unwrap_err();
        assert_eq!(fields(&refused), ["items[1]", "items[2]"]);
    }

    #[test]
    fn a_request_reads_its_items_trimmed() {
        let request = body::<PendingBody>(json!({"items": [" RG ", "Comprovante de residência"]}))
            .unwrap()
            .read()
            .unwrap();
        assert_eq!(request.items, ["RG", "Comprovante de residência"]);
        assert_eq!(request.note, None);
    }

    #[test]
    fn the_proponents_upload_takes_one_to_three_checked_files_and_names_each_bad_part() {
        let answer = proponent_answer(
            Some("  Segue o laudo ".into()),
            vec![("laudo.pdf".into(), b"%PDF-1.7 laudo".to_vec())],
        )
        .unwrap();
        assert_eq!(answer.note, "Segue o laudo");
        assert_eq!(answer.files[0].content_type, "application/pdf");
        let without_note = proponent_answer(None, vec![("f.png".into(), b"\x89PNG\r\n\x1a\n.".to_vec())]).unwrap();
        assert_eq!(without_note.note, "");
        let refused = proponent_answer(None, Vec::new()).unwrap_err();
        assert_eq!(fields(&refused), ["arquivos"]);
        let refused = proponent_answer(
            Some("x".repeat(PROPONENT_NOTE_MAX_CHARS + 1)),
            vec![
                ("a/b.pdf".into(), b"%PDF-".to_vec()),
                ("programa.pdf".into(), b"MZ\x90".to_vec()),
                ("ok.pdf".into(), b"%PDF-".to_vec()),
                ("quarto.pdf".into(), b"%PDF-".to_vec()),
            ],
        )
        .unwrap_err();
        assert_eq!(fields(&refused), ["nota", "arquivos", "arquivos[0]", "arquivos[1]"]);
    }
}
