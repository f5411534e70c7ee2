"""make listas: a lista de cada aluno (HTML; o PDF sai de livro_ext.pdf.listas), o gabarito e a
exportação para o Moodle e o QTI.

    python -m livro.exercicios.listas --lista semana-4 --turma turma.csv --exercicios mascaras,bloco-2
    (ou: make listas LISTA=semana-4 TURMA=turma.csv EXERCICIOS=mascaras,bloco-2 CONFERIR=nao)

Em `<saida>/<lista>/`: `alunos/<matrícula>.html` (capa, enunciados com espaço para a conta, o link
da lista no site, com o QR), `gabarito.html` e `gabarito.csv`, `links.csv` (para mandar a cada
aluno o seu link), `lista.json` (o que `make corrige` lê) e, se `--versoes` > 0, `moodle.xml` e
`qti21.zip`. A versão de cada exercício sai de (lista, matrícula, exercício): mudar a turma não
muda os números de ninguém. Os mesmos dados dão os mesmos bytes.
"""
import argparse
import csv
import io
import json
import shutil
import unicodedata
from pathlib import Path

from livro.exercicios import EXERCICIOS, PAGINAS, versao
from livro.exercicios.base import esc
from livro.exercicios.confere import Invalida, tolerancia
from livro.exercicios.lista import PREFIXO, escolher, ler_matricula, ler_nome, link, rotulo_versao, semente
from livro.formato import contagem, num

CURSO = "Redes Neurais e Deep Learning"
LIVRO = "Transformers: do texto ao próximo token"
ESTILO = """
@page { size: A4; margin: 16mm 16mm 18mm; }
body { font-family: 'DejaVu Serif', serif; font-size: 10.5pt; line-height: 1.45; max-width: 46rem; margin: 1.5rem auto;
  padding: 0 1rem; color: #111; }
h1, h2, h3 { font-family: 'DejaVu Sans', sans-serif; line-height: 1.25; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6rem; border-bottom: 1px solid #bbb; }
h3 { font-size: 1.05em; margin: 1.2rem 0 0.3rem; }
.capa { break-after: page; } .capa dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
.capa dt { font-weight: bold; } .capa dd { margin: 0; }
table { border-collapse: collapse; margin: 0.6rem 0; } td, th { border: 1px solid #bbb; padding: 0.2rem 0.6rem; }
td.n { text-align: right; }
.link { overflow-wrap: anywhere; font-family: 'DejaVu Sans Mono', monospace; font-size: 0.85em; }
.qr svg { width: 34mm; height: 34mm; }
.ex { break-inside: avoid; }
.versao, .tol { color: #444; font-size: 0.9em; }
.conta { border: 1px solid #999; border-radius: 4px; height: 55mm; margin: 0.4rem 0; }
.resp { margin: 0.2rem 0 1rem; } .resp span { display: inline-block; border-bottom: 1px solid #333; width: 18em; }
.aluno { break-before: page; } .aluno:first-of-type { break-before: avoid; }
.gab { border-left: 4px solid #1a7f37; padding-left: 0.6rem; }
.erros { font-size: 0.92em; }
"""


def _pagina(titulo, corpo):
    return (f'<!DOCTYPE html>\n<html lang="pt-BR"><head><meta charset="utf-8"><title>{esc(titulo)}</title>'
            f"<style>{ESTILO}</style></head><body>\n{corpo}\n</body></html>\n")


def _chave_coluna(s):
    s = unicodedata.normalize("NFKD", s.strip().lower())
    return "".join(c for c in s if not unicodedata.combining(c))


def ler_turma(texto):
    """O CSV da turma (colunas nome e matrícula; vírgula, ponto e vírgula ou tab) -> [(nome, matrícula)].
    Erros com o número da linha, em português (Invalida)."""
    texto = texto.lstrip("\ufeff")
    linhas = texto.splitlines()
    if not any(x.strip() for x in linhas):
        raise Invalida("O arquivo da turma está vazio: ele precisa de um cabeçalho (nome,matrícula) e um aluno por linha.")
    primeira = next(x for x in linhas if x.strip())
    sep = max([";", ",", "\t"], key=primeira.count)
    leitor = csv.reader(io.StringIO(texto), delimiter=sep)
    cab, turma, vistas, erros = None, [], {}, []
    for n, campos in enumerate(leitor, start=1):
        if not any(c.strip() for c in campos):
            continue
        if cab is None:
            cab = [_chave_coluna(c) for c in campos]
            if "matricula" not in cab or "nome" not in cab:
                raise Invalida(f"linha {n}: o cabeçalho precisa das colunas «nome» e «matrícula» "
                               f"(achei: {', '.join(c.strip() for c in campos)[:80]}).")
            continue
        d = dict(zip(cab, campos))
        nome = unicodedata.normalize("NFC", d.get("nome", "")).strip()
        try:
            m = ler_matricula(d.get("matricula", ""))
        except Invalida as e:
            erros.append(f"linha {n}: {e}")
            continue
        if m in vistas:
            erros.append(f"linha {n}: a matrícula {m} já apareceu na linha {vistas[m]}.")
            continue
        vistas[m] = n
        turma.append((nome or m, m))
    if erros:
        raise Invalida("A turma tem problemas:\n" + "\n".join(erros))
    if not turma:
        raise Invalida("A turma não tem nenhum aluno (só o cabeçalho).")
    return turma


def turma_rapida(n):
    """ALUNOS=N: os alunos 1 a N, com a matrícula 01 … N."""
    if not 1 <= n <= 999:
        raise Invalida("ALUNOS precisa ser um inteiro de 1 a 999.")
    w = len(str(n))
    return [(f"Aluno {k}", f"{k:0{w}d}") for k in range(1, n + 1)]


def _qr(url):
    try:
        import segno
    except ImportError:  # sem o segno (fora do .venv do livro), a lista sai só com o link escrito
        return ""
    return f'<div class="qr">{segno.make(url, error="m").svg_inline(scale=2, omitsize=True)}</div>'


def _ids_por_pagina(escolha):
    grupos = {}
    for id_, pts in escolha:
        grupos.setdefault(EXERCICIOS[id_].pagina, []).append((id_, pts))
    return [(PAGINAS[p], grupos[p]) for p in PAGINAS if p in grupos]


def _pontos(p):
    return contagem(p, "ponto") if p == int(p) else f"{num(p, 1)} pontos"


def _capa(cfg, nome, m, url):
    total = sum(p for _, p in cfg["exercicios"])
    linhas = "".join(f'<tr><td>{k}</td><td>{esc(EXERCICIOS[i].titulo)} <span class="versao">({esc(i)})</span></td>'
                     f'<td class="n">{_pontos(p)}</td></tr>' for k, (i, p) in enumerate(cfg["exercicios"], 1))
    confere = ("o site diz se cada resposta está certa" if cfg["conferir"] else
               "o site só anota as respostas; a correção é do professor")
    return (f'<section class="capa"><p>{esc(cfg["curso"])} · <em>{esc(LIVRO)}</em></p>'
            f'<h1>Lista «{esc(cfg["lista"])}»</h1><dl><dt>Aluno</dt><dd>{esc(nome)}</dd>'
            f'<dt>Matrícula</dt><dd>{esc(m)}</dd><dt>Exercícios</dt><dd>{len(cfg["exercicios"])}, '
            f'{_pontos(total)} no total</dd></dl>'
            "<h2>Como responder</h2><ul>"
            "<li>Cada enunciado tem os <strong>seus</strong> números: outro aluno recebe outros. Resolva à mão, no "
            "espaço de cada exercício, com a precisão que o enunciado pede.</li>"
            f"<li>Para entregar, abra a sua lista no site pelo link abaixo (ou pelo QR): {confere}. Lá, "
            f"«Gerar código de entrega» dá um texto (ele começa com {PREFIXO}) que você manda ao professor como ele "
            "pedir.</li>"
            "<li>Na correção, cada resposta é conferida de novo, na sua versão, pelo mesmo código do livro.</li></ul>"
            f'<p class="link"><a href="{esc(url)}">{esc(url)}</a></p>{_qr(url)}'
            f"<table><tr><th>#</th><th>Exercício</th><th>Vale</th></tr>{linhas}</table></section>")


def _enunciados(cfg, m, gabarito):
    s, partes, k = semente(cfg["lista"], m), [], 0
    for titulo, itens in _ids_por_pagina(cfg["exercicios"]):
        partes.append(f"<h2>{esc(titulo)}</h2>")
        for id_, pts in itens:
            k += 1
            v = versao(id_, s)
            tol = tolerancia(v)
            partes.append(f'<div class="ex"><h3>{k}. {esc(EXERCICIOS[id_].titulo)} · {_pontos(pts)}</h3>'
                          f"<p>{v.enunciado}" + (f' <span class="tol">({esc(tol)}.)</span>' if tol else "")
                          + f'</p><p class="versao">Exercício {esc(id_)}, versão {rotulo_versao(id_, s)}.</p>')
            if gabarito:
                erros = "".join(f"<li><strong>{esc(e.nome)}</strong>: daria {esc(v.texto(e.valor))}</li>" for e in v.erros)
                partes.append(f'<p class="gab"><strong>{esc(v.resposta_txt)}</strong>. {v.resolucao}</p>'
                              + (f'<ul class="erros">{erros}</ul>' if erros else "") + "</div>")
            else:
                partes.append('<div class="conta"></div><p class="resp">Resposta: <span></span></p></div>')
    return "\n".join(partes)


def _csv(linhas):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(linhas)
    return buf.getvalue()


def escrever(lista, turma, escolha_txt="", conferir=True, saida="_build/listas", site="", curso=CURSO, versoes=0):
    """Escreve tudo em <saida>/<lista>/; devolve a pasta."""
    lista = ler_nome(lista)
    cfg = {"lista": lista, "curso": curso, "conferir": bool(conferir), "site": site.rstrip("/"),
           "exercicios": escolher(escolha_txt)}
    pasta = Path(saida) / lista
    if pasta.exists():
        shutil.rmtree(pasta)  # nada de uma rodada anterior (outra turma, outros exercícios)
    (pasta / "alunos").mkdir(parents=True)
    ids = [i for i, _ in cfg["exercicios"]]
    links, gab, gab_csv = [["nome", "matricula", "link"]], [], [["matricula", "exercicio", "versao", "gabarito",
                                                                 "tolerancia", "pontos"]]
    for nome, m in turma:
        url = link(cfg["site"] or ".", lista, m, ids, cfg["conferir"])
        titulo = f"Lista {lista} · {nome} ({m})"
        corpo = _capa(cfg, nome, m, url) + _enunciados(cfg, m, False)
        (pasta / "alunos" / f"{m}.html").write_text(_pagina(titulo, corpo), encoding="utf-8")
        links.append([nome, m, url])
        gab.append(f'<section class="aluno"><h1>{esc(nome)} · {esc(m)}</h1>{_enunciados(cfg, m, True)}</section>')
        s = semente(lista, m)
        for id_, pts in cfg["exercicios"]:
            v = versao(id_, s)
            tol = 0 if v.tipo in ("token", "escolha") else (v.rel * abs(v.resposta) if v.rel else v.tol)
            gab_csv.append([m, id_, rotulo_versao(id_, s), v.resposta_txt, f"{tol:.6g}", pts])
    (pasta / "gabarito.html").write_text(_pagina(f"Gabarito da lista {lista}", "\n".join(gab)), encoding="utf-8")
    (pasta / "gabarito.csv").write_text(_csv(gab_csv), encoding="utf-8")
    (pasta / "links.csv").write_text(_csv(links), encoding="utf-8")
    (pasta / "lista.json").write_text(json.dumps(cfg, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if versoes:
        from livro.exercicios import lms
        lms.escrever(lista, ids, dict(cfg["exercicios"]), versoes, pasta)
    return pasta


def main(argv=None):
    ap = argparse.ArgumentParser(description="Listas de exercícios, uma por aluno, o gabarito e o Moodle/QTI.")
    ap.add_argument("--lista", default="lista")
    ap.add_argument("--turma", help="CSV com as colunas nome e matrícula")
    ap.add_argument("--alunos", type=int, help="sem turma: os alunos 1 a N")
    ap.add_argument("--exercicios", default="", help="páginas ou ids, com :pontos (vazio: todos)")
    ap.add_argument("--conferir", default="sim", help="sim: o site diz se está certo; nao: só anota")
    ap.add_argument("--saida", default="_build/listas")
    ap.add_argument("--site", default="")
    ap.add_argument("--curso", default=CURSO)
    ap.add_argument("--versoes", type=int, default=20, help="versões por exercício no Moodle e no QTI (0: sem)")
    a = ap.parse_args(argv)
    try:
        if a.conferir.strip().lower() not in ("sim", "nao", "não"):
            raise Invalida("CONFERIR é sim ou nao.")
        if a.turma:
            try:
                texto = Path(a.turma).read_bytes()
            except OSError:
                raise Invalida(f"Não achei o arquivo da turma, {a.turma}.") from None
            try:
                turma = ler_turma(texto.decode("utf-8"))
            except UnicodeDecodeError:  # uma planilha salva em Latin-1 (o Excel, no Windows)
                turma = ler_turma(texto.decode("cp1252", errors="replace"))
        else:
            turma = turma_rapida(a.alunos or 30)
        pasta = escrever(a.lista, turma, a.exercicios, a.conferir.strip().lower() == "sim", a.saida, a.site,
                         a.curso, a.versoes)
    except Invalida as e:
        raise SystemExit(f"make listas: {e}") from None
    print(f"{contagem(len(turma), 'lista')}, o gabarito e os links em {pasta}/")


if __name__ == "__main__":
    main()
