//! The one stylesheet of the service's own pages (the documentation, the development sandbox).
//! A file of its own, never inline, so that the pages' `Content-Security-Policy` can forbid
//! inline styles and scripts.

use actix_web::{HttpResponse, http::header, web};

pub const STYLESHEET_PATH: &str = "/assets/pages.css";

const STYLESHEET: &str = "\
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h2{margin-top:2rem;border-bottom:1px solid #ddd}
code,pre{background:#f5f5f5;padding:.1rem .3rem}
pre{padding:.6rem;overflow:auto}
.m{font-weight:bold;text-transform:uppercase;margin-right:.5rem}
table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
object.document{width:100%;height:500px}
form input:not([type=hidden]),form select{min-width:22rem;max-width:100%;padding:.35rem;font-size:1rem}
button{padding:.4rem .9rem;font-size:1rem}
.aviso{background:#eef5ff;border-left:4px solid #0b5cad;padding:.6rem .8rem}
.erros{background:#fff1f0;border-left:4px solid #b42318;padding:.6rem .8rem}
footer{margin-top:3rem;color:#444;font-size:.95rem}
";

pub async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(STYLESHEET)
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource(STYLESHEET_PATH).route(web::get().to(stylesheet)));
}
