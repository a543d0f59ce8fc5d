//! A customer's personal columns, in one room. The seller's registration (`customers`) and every
//! proposal's copy of it (`proposal_customers`) hold the same columns; this module is the only
//! Rust that names them all: how they read into the domain's [`CustomerSnapshot`], how a route's data
//! writes them (the parts of the one-statement writes of routes 3, 5 and 6), how the proposals'
//! copies follow the registration, and what anonymisation leaves in them; and the address's part
//! of those writes. A personal field is added here and in its migration (the read model's document, the
//! export and the back office's view take every column of the rows as stored).

use crate::composed::Part;
use crate::statement::statement;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::QueryableByName;
use diesel::sql_types::{Bool, Date, Int8, Nullable, Text, Timestamptz};
use domain::customers::{AddressData, CustomerData, CustomerSnapshot, PersonGender, Seller};
use domain::stamp::ChangeStamp;
use domain::values::{MaritalStatus, ProposalStatus, StoredValueError};
use serde::{Deserialize, Serialize};

/// The registry: each personal column of a registration and of a proposal's copy, once. A line
/// says, in order: the column and its SQL type; its Rust type; the LGPD category it holds (the
/// records of processing, `personal_data_map`; `Health` is what the retention schedule drops
/// first); how routes 3, 5 and 6 write it over a stored registration (`key`: never, it is the
/// CPF; `replace`: always; `keep`: kept when not sent; `flag`: a yes/no kept when not sent, false
/// when new; `unwritten`: not written by them); what anonymisation leaves in it; the domain's
/// field it reads into; and the value a route's data binds to it. Every statement, row type and
/// list below is generated from it: a new personal field is one line here and its migration.
macro_rules! person_registry {
    ($($then:ident)::+ $(($($pass:tt)*))?) => {
        $($then)::+! { ($($($pass)*)?)
            cpf: Text => String [Identity] key "$2"
                { cpf: cpf } |c| c.cpf.as_str();
            nome_completo: Text => String [Identity] replace "'Titular anonimizado'"
                { full_name: nome_completo } |c| c.full_name.as_str();
            nome_social: Nullable<Text> => Option<String> [Identity] keep "NULL"
                { social_name: nome_social } |c| c.social_name.as_ref().map(|n| n.as_str());
            nome_mae: Nullable<Text> => Option<String> [Identity] keep "NULL"
                { mother_name: nome_mae } |c| c.mother_name.as_ref().map(|n| n.as_str());
            data_nascimento: Date => NaiveDate [Identity] replace "DATE '1900-01-01'"
                { birth_date: data_nascimento } |c| c.birth_date.date();
            sexo: Text => String [Identity] replace "'Não informado'"
                { gender: PersonGender::from_stored(&sexo, TABLE, "sexo")? } |c| c.gender.as_str();
            estado_civil: Nullable<Text> => Option<String> [Identity] keep "NULL"
                { marital_status: estado_civil.as_deref()
                    .map(|m| MaritalStatus::from_stored(m, TABLE, "estado_civil")).transpose()? }
                |c| c.marital_status.map(|m| m.as_str());
            nacionalidade: Nullable<Text> => Option<String> [Identity] keep "NULL"
                { nationality: nacionalidade } |c| c.nationality.as_deref();
            celular: Nullable<Text> => Option<String> [Contact] keep "NULL"
                { cell_phone: celular } |c| c.cell_phone.as_ref().map(|p| p.as_str());
            telefone_fixo: Nullable<Text> => Option<String> [Contact] keep "NULL"
                { landline: telefone_fixo } |c| c.landline.as_ref().map(|p| p.as_str());
            email: Nullable<Text> => Option<String> [Contact] keep "NULL"
                { email: email } |c| c.email.as_ref().map(|e| e.as_str());
            profissao: Nullable<Text> => Option<String> [Identity] keep "NULL"
                { profession: profissao } |c| c.profession.as_deref();
            salario: Nullable<Int8> => Option<i64> [Financial] keep "NULL"
                { salary: salario } |c| c.salary.map(|s| s.cents());
            trabalhando: Bool => bool [Financial] flag "false"
                { working: trabalhando } |c| c.working;
            servidor_publico: Bool => bool [Financial] flag "false"
                { public_servant: servidor_publico } |c| c.public_servant;
            pep: Bool => bool [Identity] flag "false"
                { pep: pep } |c| c.pep;
            afastado: Bool => bool [Health] flag "false"
                { absent: afastado } |c| c.absent;
            medicamento: Bool => bool [Health] flag "false"
                { medication: medicamento } |c| c.medication;
            medicamento_descricao: Nullable<Text> => Option<String> [Health] keep "NULL"
                { medication_description: medicamento_descricao } |c| c.medication_description.as_deref();
            e_analfabeto: Bool => bool [Identity] flag "false"
                { illiterate: e_analfabeto } |c| c.illiterate;
            cargo_politico: Nullable<Text> => Option<String> [Identity] unwritten "NULL"
                { political_office: cargo_politico };
        }
    };
}

pub(crate) use person_registry;

/// The row type and its reading into the domain, from the registry.
macro_rules! person_row {
    (() $($col:ident: $sql:ty => $rust:ty [$cat:ident] $rule:ident $anon:literal
        { $field:ident: $read:expr } $(|$c:ident| $bind:expr)?;)*) => {
        /// The personal columns of a registration or of a proposal's copy, read from a statement's
        /// row or from a row's `to_jsonb` (the read model's document keeps the copy so).
        #[derive(Debug, Clone, PartialEq, QueryableByName, Serialize, Deserialize)]
        pub struct PersonColumns {
            $(
                #[diesel(sql_type = $sql)]
                pub $col: $rust,
            )*
        }

        impl TryFrom<PersonColumns> for CustomerSnapshot {
            type Error = StoredValueError;

            /// The gender and the marital status read as their choices (a stored value none spells
            /// is an error naming where).
            fn try_from(row: PersonColumns) -> Result<Self, StoredValueError> {
                let PersonColumns { $($col),* } = row;
                Ok(CustomerSnapshot { $($field: $read,)* })
            }
        }

        /// The values a route's data binds to `registration`'s placeholders.
        fn bind_person<'a>(part: Part<'a>, customer: &'a CustomerData) -> Part<'a> {
            part $($(.value(stringify!($col), { let $c = customer; $bind }))?)*
        }
    };
}

person_registry!(person_row);

/// The table a stored value error names (the copy holds the same columns and spellings).
const TABLE: &str = "customers";

/// Who changed a row and when (`alterado_por`, `criado_em`, `alterado_em`).
#[derive(Debug, Clone, PartialEq, QueryableByName, Serialize, Deserialize)]
pub struct StampColumns {
    #[diesel(sql_type = Text)]
    pub alterado_por: String,
    #[diesel(sql_type = Timestamptz)]
    pub criado_em: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    pub alterado_em: DateTime<Utc>,
}

impl From<StampColumns> for ChangeStamp {
    fn from(r: StampColumns) -> Self {
        ChangeStamp {
            changed_by: r.alterado_por,
            created_at: r.criado_em,
            updated_at: r.alterado_em,
        }
    }
}

/// The personal columns, each qualified by `$prefix` (`""` or `"r."`) and followed by `, `, in
/// the registry's order (every statement here lists them so).
macro_rules! person_columns {
    ($p:literal) => {
        $crate::person_columns::person_registry!(crate::person_columns::person_column_list($p))
    };
}

macro_rules! person_column_list {
    (($p:literal) $($col:ident: $sql:ty => $rust:ty [$cat:ident] $rule:ident $anon:literal
        { $field:ident: $read:expr } $(|$c:ident| $bind:expr)?;)*) => {
        concat!($($p, stringify!($col), ", ",)*)
    };
}

pub(crate) use person_column_list;

/// How routes 3, 5 and 6 write each kind of column (the registry's `key`, `replace`, `keep`,
/// `flag`, `unwritten`): its name in the INSERT, its value there, its update on conflict.
macro_rules! written_column {
    (unwritten, $col:ident) => {
        ""
    };
    ($rule:ident, $col:ident) => {
        concat!(stringify!($col), ", ")
    };
}

macro_rules! written_value {
    (unwritten, $col:ident) => {
        ""
    };
    (flag, $col:ident) => {
        concat!("COALESCE({", stringify!($col), "}, false), ")
    };
    ($rule:ident, $col:ident) => {
        concat!("{", stringify!($col), "}, ")
    };
}

macro_rules! updated_on_conflict {
    (replace, $col:ident) => {
        concat!(stringify!($col), " = EXCLUDED.", stringify!($col), ", ")
    };
    (keep, $col:ident) => {
        concat!(
            stringify!($col),
            " = COALESCE(EXCLUDED.",
            stringify!($col),
            ", customers.",
            stringify!($col),
            "), "
        )
    };
    // A yes/no not sent binds null: the stored one stays (EXCLUDED holds the insert's false).
    (flag, $col:ident) => {
        concat!(
            stringify!($col),
            " = COALESCE({",
            stringify!($col),
            "}, customers.",
            stringify!($col),
            "), "
        )
    };
    ($rule:ident, $col:ident) => {
        ""
    };
}

macro_rules! registration_statement {
    (() $($col:ident: $sql:ty => $rust:ty [$cat:ident] $rule:ident $anon:literal
        { $field:ident: $read:expr } $(|$c:ident| $bind:expr)?;)*) => {
        concat!(
            "registration AS (INSERT INTO customers (",
            $(written_column!($rule, $col),)*
            "alterado_por, aplicacao_vendedor, id_parceiro_vendedor, id_endereco) VALUES (",
            $(written_value!($rule, $col),)*
            "{alterado_por}, {aplicacao_vendedor}, {id_parceiro_vendedor}, \
             CASE WHEN {com_endereco} THEN nextval('addresses_id_seq') END) \
             ON CONFLICT ON CONSTRAINT customers_seller_cpf_key DO UPDATE SET ",
            $(updated_on_conflict!($rule, $col),)*
            "id_endereco = COALESCE(customers.id_endereco, EXCLUDED.id_endereco), \
             alterado_por = EXCLUDED.alterado_por, alterado_em = now() RETURNING *)"
        )
    };
}

/// `registration`, the first part of a write statement: creates the seller's registration of the
/// customer, or updates the seller's own one by CPF: fields not sent keep their stored value (a
/// new registration stores null or false for them). Another seller's registration is another row.
/// With an address, a registration without one is given its address's id here, from the
/// addresses' sequence, so that the address is written beside it in the same statement
/// (`customers::address`).
pub(crate) fn registration<'a>(
    c: &'a CustomerData,
    seller: Seller,
    changed_by: &'a str,
    with_address: bool,
) -> Part<'a> {
    bind_person(Part::new("registration", person_registry!(registration_statement)), c)
        .value("alterado_por", changed_by)
        .value("aplicacao_vendedor", seller.application())
        .value("id_parceiro_vendedor", seller.partner_id())
        .value("com_endereco", with_address)
}

/// The proposal's copy's columns past its two keys: the person, the address, the stamp.
macro_rules! copy_columns {
    () => {
        concat!(
            $crate::person_columns::person_columns!(""),
            "cep, endereco, numero, bairro, cidade, estado, complemento, alterado_por, criado_em, alterado_em"
        )
    };
}

/// `copied`: the new proposal's (`proposal`) copy of the registration and its address, as the
/// statement wrote them (its row answered for the proposal's document).
pub(crate) fn new_copy<'a>() -> Part<'a> {
    Part::text(concat!(
        "copied AS (INSERT INTO proposal_customers (id_proposta, id_cliente, ",
        copy_columns!(),
        ") SELECT p.id, r.id, ",
        person_columns!("r."),
        "a.cep, a.endereco, a.numero, a.bairro, a.cidade, a.estado, a.complemento, \
         r.alterado_por, r.criado_em, r.alterado_em \
         FROM proposal p, registration r, address a RETURNING *)"
    ))
}

/// `refreshed`: the registration's earlier proposals still `NOVO` take its data (a correction
/// reaches them), and its address when one was written; a proposal that left NOVO keeps the copy
/// it had, and so does one an operation holds (a send renders from it): checked under the
/// proposal's row lock by `proposal_copy_refreshable` (migration 000037), so that a move or a claim
/// committing meanwhile is seen. The statement's own new proposal is not among them (a statement's
/// parts do not see each other's rows): `copied` writes it. It answers the copies refreshed, whose
/// documents the statement writes again (`read_model::refreshed_documents`).
pub(crate) fn refreshed_copies<'a>() -> Part<'a> {
    Part::new(
        "refreshed",
        concat!(
            "refreshed AS (UPDATE proposal_customers pc SET (",
            copy_columns!(),
            ") = (",
            person_columns!("r."),
            "coalesce(a.cep, pc.cep), coalesce(a.endereco, pc.endereco), coalesce(a.numero, pc.numero), \
             coalesce(a.bairro, pc.bairro), coalesce(a.cidade, pc.cidade), coalesce(a.estado, pc.estado), \
             CASE WHEN a.id IS NULL THEN pc.complemento ELSE a.complemento END, \
             r.alterado_por, r.criado_em, r.alterado_em) \
             FROM registration r LEFT JOIN address a ON true \
             JOIN proposals o ON o.id_cliente = r.id AND o.status = {novo} \
             WHERE pc.id_proposta = o.id AND proposal_copy_refreshable(o.id, {novo}) \
             RETURNING pc.*)"
        ),
    )
    .value("novo", ProposalStatus::New.as_str())
}

pub(crate) use person_columns;

/// What anonymisation leaves in each personal column (`$2` the value that stands for the CPF):
/// the name says what happened, the birth date is a placeholder day, every other value emptied.
macro_rules! anonymized_sets {
    (() $($col:ident: $sql:ty => $rust:ty [$cat:ident] $rule:ident $anon:literal
        { $field:ident: $read:expr } $(|$c:ident| $bind:expr)?;)*) => {
        concat!($(stringify!($col), " = ", $anon, ", ",)*)
    };
}

statement! {
    /// The personal fields of a registration replaced, with the registration's own keys.
    /// `$1` the registration, `$2` the value that stands for the CPF, `$3` who anonymised it.
    pub(crate) ANONYMIZE_REGISTRATION = concat!(
    "UPDATE customers SET ",
    person_registry!(anonymized_sets),
    "key_cliente = NULL, codigo_jave = NULL, id_endereco = NULL, ecommerce_customer_id = NULL, \
     payment_method_id = NULL, alterado_por = $3, alterado_em = now() WHERE id = $1"
);
}

/// What anonymisation writes in a proposal's copy of the person, with the copy's address.
macro_rules! anonymized_copy {
    ($which:literal) => {
        concat!(
            "UPDATE proposal_customers SET ",
            person_registry!(anonymized_sets),
            "cep = '', endereco = '', numero = '', bairro = '', cidade = '', estado = '', complemento = NULL, \
             alterado_por = $3, alterado_em = now() WHERE ",
            $which
        )
    };
}

statement! {
    /// The same for every proposal's copy of the registration `$1`.
    pub(crate) ANONYMIZE_COPIES = anonymized_copy!("id_cliente = $1");
}

statement! {
    /// The same for the copy of the proposal `$1` alone (the retention schedule's unconcluded
    /// proposal of a person whose registration still serves another).
    pub(crate) ANONYMIZE_PROPOSAL_COPY = anonymized_copy!("id_proposta = $1");
}

/// The name anonymisation leaves: a registration or copy so named has nothing left to keep.
pub(crate) const ANONYMIZED_NAME: &str = "Titular anonimizado";

/// A row whose health answers (LGPD art. 11: the registry's `Health` columns) are still held,
/// with an optional table alias (`"pc."`): any of them not what dropping leaves.
macro_rules! holds_health_answers {
    ($alias:literal) => {
        $crate::person_columns::person_registry!(crate::person_columns::health_held($alias))
    };
}

macro_rules! health_held {
    (($alias:literal) $($col:ident: $sql:ty => $rust:ty [$cat:ident] $rule:ident $anon:literal
        { $field:ident: $read:expr } $(|$c:ident| $bind:expr)?;)*) => {
        concat!("(false", $(crate::person_columns::health_column!($cat, concat!(" OR ", $alias, stringify!($col), " IS DISTINCT FROM ", $anon)),)* ")")
    };
}

pub(crate) use health_held;

/// `$text` for a column of the `Health` category, nothing for the others.
macro_rules! health_column {
    (Health, $text:expr) => {
        $text
    };
    ($cat:ident, $text:expr) => {
        ""
    };
}

pub(crate) use health_column;
pub(crate) use holds_health_answers;

/// What dropping the health answers leaves in them (the anonymised values).
macro_rules! health_dropped {
    (() $($col:ident: $sql:ty => $rust:ty [$cat:ident] $rule:ident $anon:literal
        { $field:ident: $read:expr } $(|$c:ident| $bind:expr)?;)*) => {
        concat!($(health_column!($cat, concat!(stringify!($col), " = ", $anon, ", ")),)*)
    };
}

statement! {
    /// The health answers dropped from the registrations of the CPF `$1` (by `$2`), the rest kept,
    /// and the change's time left as it was: the schedule's later steps count from the last change.
    pub(crate) DROP_REGISTRATION_HEALTH = concat!(
    "UPDATE customers SET ",
    person_registry!(health_dropped),
    "alterado_por = $2 WHERE cpf = $1 AND ",
    holds_health_answers!("")
);
}

statement! {
    /// The same for the copies of the proposals `$1`.
    pub(crate) DROP_COPY_HEALTH = concat!(
    "UPDATE proposal_customers SET ",
    person_registry!(health_dropped),
    "alterado_por = $2 WHERE id_proposta = ANY($1) AND ",
    holds_health_answers!("")
);
}

/// `address`, after `person_columns::registration`: with an address, the registration's address
/// written under the id the registration holds (given by `registration` to a registration without
/// one): updated when it is stored, inserted when not. Without one the part writes nothing.
pub(crate) fn address(a: Option<&AddressData>) -> Part<'_> {
    Part::new(
        "address",
        "address AS ( \
         INSERT INTO addresses (id, cep, endereco, numero, bairro, cidade, estado, complemento) \
         SELECT r.id_endereco, {cep}, {endereco}, {numero}, {bairro}, {cidade}, {estado}, {complemento} \
         FROM registration r WHERE {com_endereco} \
         ON CONFLICT (id) DO UPDATE SET cep = EXCLUDED.cep, endereco = EXCLUDED.endereco, numero = EXCLUDED.numero, \
             bairro = EXCLUDED.bairro, cidade = EXCLUDED.cidade, estado = EXCLUDED.estado, \
             complemento = EXCLUDED.complemento, alterado_em = now() \
         RETURNING *)",
    )
    .value("com_endereco", a.is_some())
    .value("cep", a.map(|a| a.cep.as_str()))
    .value("endereco", a.map(|a| a.street.as_str()))
    .value("numero", a.map(|a| a.number.as_str()))
    .value("bairro", a.map(|a| a.neighborhood.as_str()))
    .value("cidade", a.map(|a| a.city.as_str()))
    .value("estado", a.map(|a| a.state.as_str()))
    .value("complemento", a.and_then(|a| a.complement.as_deref()))
}
