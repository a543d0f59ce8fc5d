//! A customer's personal columns, in one room. The seller's registration (`customers`) and every
//! proposal's copy of it (`proposal_customers`) hold the same columns; this module is the only
//! Rust that names them all: how they read into the domain's [`CustomerSnapshot`], how a route's data
//! writes them (the parts of the one-statement writes of routes 3, 5 and 6), how the proposals'
//! copies follow the registration, and what anonymisation leaves in them. A personal field is added here and in its migration (the read model's document, the
//! export and the back office's view take every column of the rows as stored).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::QueryableByName;
use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{Bool, Date, Int8, Nullable, Text, Timestamptz};
use domain::customers::{ChangeStamp, CustomerData, CustomerSnapshot, Seller};
use serde::Deserialize;

/// The personal columns of a registration or of a proposal's copy, read from a statement's row
/// or from a row's `to_jsonb` (the read model's document keeps the copy so).
#[derive(Debug, Clone, QueryableByName, Deserialize)]
pub struct PersonColumns {
    #[diesel(sql_type = Text)]
    pub cpf: String,
    #[diesel(sql_type = Text)]
    pub nome_completo: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub nome_social: Option<String>,
    #[diesel(sql_type = Date)]
    pub data_nascimento: NaiveDate,
    #[diesel(sql_type = Text)]
    pub sexo: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub estado_civil: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub nacionalidade: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub celular: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub telefone_fixo: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub email: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub profissao: Option<String>,
    #[diesel(sql_type = Nullable<Int8>)]
    pub salario: Option<i64>,
    #[diesel(sql_type = Bool)]
    pub trabalhando: bool,
    #[diesel(sql_type = Bool)]
    pub servidor_publico: bool,
    #[diesel(sql_type = Bool)]
    pub pep: bool,
    #[diesel(sql_type = Bool)]
    pub afastado: bool,
    #[diesel(sql_type = Bool)]
    pub medicamento: bool,
    #[diesel(sql_type = Nullable<Text>)]
    pub medicamento_descricao: Option<String>,
    #[diesel(sql_type = Bool)]
    pub e_analfabeto: bool,
    #[diesel(sql_type = Nullable<Text>)]
    pub cargo_politico: Option<String>,
}

impl From<PersonColumns> for CustomerSnapshot {
    fn from(r: PersonColumns) -> Self {
        CustomerSnapshot {
            cpf: r.cpf,
            full_name: r.nome_completo,
            social_name: r.nome_social,
            birth_date: r.data_nascimento,
            gender: r.sexo,
            marital_status: r.estado_civil,
            nationality: r.nacionalidade,
            cell_phone: r.celular,
            landline: r.telefone_fixo,
            email: r.email,
            profession: r.profissao,
            salary: r.salario,
            working: r.trabalhando,
            public_servant: r.servidor_publico,
            pep: r.pep,
            absent: r.afastado,
            medication: r.medicamento,
            medication_description: r.medicamento_descricao,
            illiterate: r.e_analfabeto,
            political_office: r.cargo_politico,
        }
    }
}

/// Who changed a row and when (`alterado_por`, `criado_em`, `alterado_em`).
#[derive(Debug, Clone, QueryableByName, Deserialize)]
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

/// The personal columns, in the order every statement here lists them, each qualified by
/// `$prefix` (`""` or `"r."`).
macro_rules! person_columns {
    ($p:literal) => {
        concat!(
            $p,
            "cpf, ",
            $p,
            "nome_completo, ",
            $p,
            "data_nascimento, ",
            $p,
            "sexo, ",
            $p,
            "estado_civil, ",
            $p,
            "nacionalidade, ",
            $p,
            "celular, ",
            $p,
            "telefone_fixo, ",
            $p,
            "email, ",
            $p,
            "profissao, ",
            $p,
            "salario, ",
            $p,
            "trabalhando, ",
            $p,
            "servidor_publico, ",
            $p,
            "pep, ",
            $p,
            "afastado, ",
            $p,
            "medicamento, ",
            $p,
            "medicamento_descricao, ",
            $p,
            "e_analfabeto, ",
            $p,
            "cargo_politico, ",
            $p,
            "nome_social"
        )
    };
}

/// `registration`, the first part of a write statement: creates the seller's registration of the
/// customer, or updates the seller's own one by CPF ($1–$22, bound by [`bind_registration`]):
/// fields not sent keep their stored value (a new registration stores null or false for them).
/// Another seller's registration is another row. With an address ($23 true), a registration
/// without one is given its address's id here, from the addresses' sequence, so that the address
/// is written beside it in the same statement (`customers::address_cte!`).
macro_rules! registration_cte {
    () => {
        "registration AS ( \
         INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, estado_civil, nacionalidade, celular, \
             telefone_fixo, email, profissao, salario, trabalhando, servidor_publico, pep, afastado, medicamento, \
             medicamento_descricao, e_analfabeto, alterado_por, aplicacao_vendedor, id_parceiro_vendedor, nome_social, \
             id_endereco) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12, false), COALESCE($13, false), \
             COALESCE($14, false), COALESCE($15, false), COALESCE($16, false), $17, COALESCE($18, false), $19, $20, $21, \
             $22, CASE WHEN $23 THEN nextval('addresses_id_seq') END) \
         ON CONFLICT ON CONSTRAINT customers_seller_cpf_key DO UPDATE SET \
             nome_completo = $2, data_nascimento = $3, sexo = $4, \
             estado_civil = COALESCE($5, customers.estado_civil), nacionalidade = COALESCE($6, customers.nacionalidade), \
             celular = COALESCE($7, customers.celular), telefone_fixo = COALESCE($8, customers.telefone_fixo), \
             email = COALESCE($9, customers.email), profissao = COALESCE($10, customers.profissao), \
             salario = COALESCE($11, customers.salario), trabalhando = COALESCE($12, customers.trabalhando), \
             servidor_publico = COALESCE($13, customers.servidor_publico), pep = COALESCE($14, customers.pep), \
             afastado = COALESCE($15, customers.afastado), medicamento = COALESCE($16, customers.medicamento), \
             medicamento_descricao = COALESCE($17, customers.medicamento_descricao), \
             e_analfabeto = COALESCE($18, customers.e_analfabeto), nome_social = COALESCE($22, customers.nome_social), \
             id_endereco = COALESCE(customers.id_endereco, EXCLUDED.id_endereco), \
             alterado_por = $19, alterado_em = now() \
         RETURNING *)"
    };
}

/// The proposal's copy's columns past its two keys: the person, the address, the stamp.
macro_rules! copy_columns {
    () => {
        concat!(
            $crate::person_columns::person_columns!(""),
            ", cep, endereco, numero, bairro, cidade, estado, complemento, alterado_por, criado_em, alterado_em"
        )
    };
}

/// `copied`: the new proposal's (`proposal`) copy of the registration and its address, as the
/// statement wrote them.
macro_rules! new_copy_cte {
    () => {
        concat!(
            "copied AS (INSERT INTO proposal_customers (id_proposta, id_cliente, ",
            $crate::person_columns::copy_columns!(),
            ") SELECT p.id, r.id, ",
            $crate::person_columns::person_columns!("r."),
            ", a.cep, a.endereco, a.numero, a.bairro, a.cidade, a.estado, a.complemento, \
             r.alterado_por, r.criado_em, r.alterado_em \
             FROM proposal p, registration r, address a)"
        )
    };
}

/// `refreshed`: the registration's earlier proposals still `NOVO` ($31) take its data (a
/// correction reaches them), and its address when one was written; a proposal that left NOVO
/// keeps the copy it had, and so does one an operation holds (a send renders from it): checked
/// under the proposal's row lock by `proposal_copy_refreshable` (migration 000037), so that a move
/// or a claim committing meanwhile is seen. The statement's own new proposal is not among them (a statement's parts
/// do not see each other's rows): `copied` writes it.
macro_rules! refreshed_copies_cte {
    () => {
        concat!(
            "refreshed AS (UPDATE proposal_customers pc SET (",
            $crate::person_columns::copy_columns!(),
            ") = (",
            $crate::person_columns::person_columns!("r."),
            ", coalesce(a.cep, pc.cep), coalesce(a.endereco, pc.endereco), coalesce(a.numero, pc.numero), \
             coalesce(a.bairro, pc.bairro), coalesce(a.cidade, pc.cidade), coalesce(a.estado, pc.estado), \
             CASE WHEN a.id IS NULL THEN pc.complemento ELSE a.complemento END, \
             r.alterado_por, r.criado_em, r.alterado_em) \
             FROM registration r LEFT JOIN address a ON true \
             JOIN proposals o ON o.id_cliente = r.id AND o.status = $31 \
             WHERE pc.id_proposta = o.id AND proposal_copy_refreshable(o.id, $31))"
        )
    };
}

pub(crate) use {copy_columns, new_copy_cte, person_columns, refreshed_copies_cte, registration_cte};

/// Binds `registration_cte!`'s $1–$23: the route's data, its seller and whether an address follows.
pub(crate) fn bind_registration<'f>(
    q: BoxedSqlQuery<'f, Pg, SqlQuery>,
    c: &'f CustomerData,
    seller: Seller,
    changed_by: &'f str,
    with_address: bool,
) -> BoxedSqlQuery<'f, Pg, SqlQuery> {
    q.bind::<Text, _>(c.cpf.as_str())
        .bind::<Text, _>(c.full_name.as_str())
        .bind::<Date, _>(c.birth_date.date())
        .bind::<Text, _>(c.gender.as_str())
        .bind::<Nullable<Text>, _>(c.marital_status.map(|m| m.as_str()))
        .bind::<Nullable<Text>, _>(c.nationality.as_deref())
        .bind::<Nullable<Text>, _>(c.cell_phone.as_ref().map(|p| p.as_str()))
        .bind::<Nullable<Text>, _>(c.landline.as_ref().map(|p| p.as_str()))
        .bind::<Nullable<Text>, _>(c.email.as_ref().map(|e| e.as_str()))
        .bind::<Nullable<Text>, _>(c.profession.as_deref())
        .bind::<Nullable<Int8>, _>(c.salary.map(|s| s.cents()))
        .bind::<Nullable<Bool>, _>(c.working)
        .bind::<Nullable<Bool>, _>(c.public_servant)
        .bind::<Nullable<Bool>, _>(c.pep)
        .bind::<Nullable<Bool>, _>(c.absent)
        .bind::<Nullable<Bool>, _>(c.medication)
        .bind::<Nullable<Text>, _>(c.medication_description.as_deref())
        .bind::<Nullable<Bool>, _>(c.illiterate)
        .bind::<Text, _>(changed_by)
        .bind::<Text, _>(seller.application())
        .bind::<Nullable<Int8>, _>(seller.partner_id())
        .bind::<Nullable<Text>, _>(c.social_name.as_ref().map(|n| n.as_str()))
        .bind::<Bool, _>(with_address)
}

/// The personal fields of a registration replaced: the name says what happened, the birth date is
/// a placeholder day, every other personal value is emptied, with the registration's own keys.
/// `$1` the registration, `$2` the value that stands for the CPF, `$3` who anonymised it.
pub(crate) const ANONYMIZE_REGISTRATION: &str = "\
UPDATE customers SET cpf = $2, nome_completo = 'Titular anonimizado', nome_social = NULL, data_nascimento = DATE '1900-01-01',
    sexo = 'Não informado', estado_civil = NULL, nacionalidade = NULL, celular = NULL, telefone_fixo = NULL,
    email = NULL, profissao = NULL, salario = NULL, trabalhando = false, servidor_publico = false, pep = false,
    afastado = false, medicamento = false, medicamento_descricao = NULL, e_analfabeto = false, cargo_politico = NULL,
    key_cliente = NULL, codigo_jave = NULL, id_endereco = NULL, ecommerce_customer_id = NULL, payment_method_id = NULL,
    alterado_por = $3, alterado_em = now()
WHERE id = $1";

/// The same for every proposal's copy of the registration `$1`, with the copy's address.
pub(crate) const ANONYMIZE_COPIES: &str = "\
UPDATE proposal_customers SET cpf = $2, nome_completo = 'Titular anonimizado', nome_social = NULL, data_nascimento = DATE '1900-01-01',
    sexo = 'Não informado', estado_civil = NULL, nacionalidade = NULL, celular = NULL, telefone_fixo = NULL,
    email = NULL, profissao = NULL, salario = NULL, trabalhando = false, servidor_publico = false, pep = false,
    afastado = false, medicamento = false, medicamento_descricao = NULL, e_analfabeto = false, cargo_politico = NULL,
    cep = '', endereco = '', numero = '', bairro = '', cidade = '', estado = '', complemento = NULL,
    alterado_por = $3, alterado_em = now()
WHERE id_cliente = $1";
