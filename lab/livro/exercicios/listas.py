"""Listas de exercícios para quem ensina: uma por aluno, cada uma com os seus números.

    python -m livro.exercicios.listas --alunos 30 --semente 2026 --saida _build/listas
    (ou: make listas ALUNOS=30 SEMENTE=2026)

Escreve `aluno-01.html` … `aluno-NN.html` e `gabarito.html` (as respostas e as resoluções de
todos). Cada exercício de cada aluno é a versão sorteada por uma semente que sai de (SEMENTE,
aluno, exercício) e aparece na lista: digitada no campo "Versão" do exercício, no site, ela
mostra o mesmo enunciado, e o aluno confere a resposta sozinho. A mesma semente dá os mesmos
bytes (nada de data ou de hora nos arquivos).
"""
import argparse
from pathlib import Path

from livro.exercicios import EXERCICIOS, PAGINAS, da_pagina, versao
from livro.exercicios.base import esc
from livro.exercicios.confere import tolerancia
from livro.formato import inteiro

MAX_SEMENTE = 999999
ESTILO = ("body{font-family:sans-serif;max-width:46rem;margin:2rem auto;line-height:1.5;padding:0 1rem}"
          "h2{margin-top:2rem;border-bottom:1px solid #ccc}.versao{color:#555;font-size:.9em}"
          ".resposta{border-left:4px solid #1a7f37;padding-left:.6rem}"
          "@media print{h1{page-break-before:always}h1:first-of-type{page-break-before:avoid}}")


def semente_do_aluno(semente, aluno, id_):
    """A semente (1 a 999999) da versão de um exercício para um aluno."""
    h = 2166136261
    for ch in f"{semente}|{aluno}|{id_}":
        h = ((h ^ ord(ch)) * 16777619) % 2 ** 32
    return 1 + h % MAX_SEMENTE


def _pagina(titulo, corpo):
    return (f'<!DOCTYPE html>\n<html lang="pt-BR"><head><meta charset="utf-8"><title>{esc(titulo)}</title>'
            f"<style>{ESTILO}</style></head><body>\n{corpo}\n</body></html>\n")


def _itens(semente, aluno, gabarito):
    partes, n = [], 0
    for pag, titulo in PAGINAS.items():
        ids = da_pagina(pag)
        if not ids:
            continue
        partes.append(f"<h2>{esc(titulo)}</h2>")
        for id_ in ids:
            n += 1
            s = semente_do_aluno(semente, aluno, id_)
            v = versao(id_, s)
            tol = tolerancia(v)
            partes.append(f"<h3>{n}. {esc(EXERCICIOS[id_].titulo)}</h3><p>{v.enunciado}"
                          + (f" ({esc(tol)}.)" if tol else "") + "</p>"
                          f'<p class="versao">Exercício {esc(id_)}, versão {s}: no site, digite {s} no campo '
                          "“Versão” deste exercício para conferir a sua resposta.</p>")
            if gabarito:
                partes.append(f'<p class="resposta"><strong>{esc(v.resposta_txt)}</strong>. {v.resolucao}</p>')
    return "\n".join(partes)


def escrever(alunos, semente, saida):
    """Escreve as listas e o gabarito; devolve os caminhos, em ordem."""
    if alunos < 1 or alunos > 999:
        raise SystemExit("ALUNOS precisa ser um inteiro de 1 a 999.")
    saida = Path(saida)
    saida.mkdir(parents=True, exist_ok=True)
    for velho in [*saida.glob("aluno-*.html"), saida / "gabarito.html"]:  # as listas de uma turma anterior
        velho.unlink(missing_ok=True)
    largura = len(str(alunos))
    feitos, gab = [], []
    for a in range(1, alunos + 1):
        nome = f"aluno-{a:0{largura}d}.html"
        titulo = f"Exercícios conferidos · aluno {a} de {inteiro(alunos)} (semente {semente})"
        (saida / nome).write_text(_pagina(titulo, f"<h1>{esc(titulo)}</h1>\n" + _itens(semente, a, False)),
                                  encoding="utf-8")
        feitos.append(saida / nome)
        gab.append(f"<h1>Gabarito · aluno {a}</h1>\n" + _itens(semente, a, True))
    (saida / "gabarito.html").write_text(_pagina(f"Gabarito (semente {semente})", "\n".join(gab)), encoding="utf-8")
    return feitos + [saida / "gabarito.html"]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Listas de exercícios, uma por aluno, e o gabarito.")
    ap.add_argument("--alunos", type=int, required=True)
    ap.add_argument("--semente", type=int, required=True)
    ap.add_argument("--saida", default="_build/listas")
    a = ap.parse_args(argv)
    arqs = escrever(a.alunos, a.semente, a.saida)
    print(f"{len(arqs) - 1} listas e o gabarito em {a.saida}/")


if __name__ == "__main__":
    main()
