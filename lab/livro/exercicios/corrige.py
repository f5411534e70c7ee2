"""make corrige: as notas de uma lista e os erros da turma, dos códigos de entrega dos alunos.

    python -m livro.exercicios.corrige --lista semana-4 --turma turma.csv --entregas entregas.txt
    (ou: make corrige LISTA=semana-4 TURMA=turma.csv ENTREGAS=entregas.txt)

Lê `<saida>/<lista>/lista.json` (de `make listas`) e as entregas: um código por linha, ou o CSV que
um LMS exporta (o código em qualquer coluna). Cada resposta é conferida de novo, na versão do
aluno, pelo mesmo `conferir` da página. Escreve, ao lado da lista, `notas.csv` (um aluno por
linha: os pontos de cada exercício e o total), `respostas.csv` (um aluno e um exercício por
linha: a resposta, o veredito e o erro típico) e `relatorio.html` (por exercício: quantos
acertaram, quantos fizeram cada erro típico, as respostas erradas que nenhum erro explica).
Uma linha ruim nunca derruba as outras: cada problema sai com o número da linha.
"""
import argparse
import csv
import io
import json
from pathlib import Path

from livro.exercicios import EXERCICIOS, versao
from livro.exercicios.base import esc
from livro.exercicios.confere import Invalida, conferir
from livro.exercicios.lista import PREFIXO, achar_codigos, ler_codigo, rotulo_versao, semente
from livro.exercicios.listas import ESTILO, ler_turma, turma_rapida
from livro.formato import contagem, num

VEREDITOS = {"certo": "certo", "errado": "errado", "invalido": "ilegível", "branco": "em branco",
             "ausente": "não entregou"}


def _texto(caminho):
    b = Path(caminho).read_bytes()
    try:
        return b.decode("utf-8-sig")
    except UnicodeDecodeError:
        return b.decode("cp1252", errors="replace")


def _linhas(texto, e_csv):
    """(número da linha, texto em que procurar códigos). Num CSV, uma linha lógica pode ter várias físicas."""
    if not e_csv:
        return [(n, t) for n, t in enumerate(texto.splitlines(), start=1)]
    primeira = next((x for x in texto.splitlines() if x.strip()), "")
    leitor = csv.reader(io.StringIO(texto), delimiter=max([";", ",", "\t"], key=primeira.count))
    out, inicio = [], 1
    try:
        for campos in leitor:
            out.append((inicio, " ".join(campos)))
            inicio = leitor.line_num + 1
    except csv.Error as e:
        out.append((inicio, f"\0csv:{e}"))
    return out


def ler_entregas(texto, lista, matriculas, ids, e_csv=False):
    """-> ({matrícula: (linha, respostas)}, [problemas]); vale o último código de cada aluno.
    ids: os exercícios da lista (o código de uma escolha de exercícios diferente fica de fora, avisado)."""
    entregas, problemas, linhas_de = {}, [], {}
    for n, t in _linhas(texto, e_csv):
        if t.startswith("\0csv:"):
            problemas.append(f"linha {n}: o CSV não pôde ser lido daqui em diante ({t[5:]}).")
            break
        codigos = achar_codigos(t)
        if not codigos:
            if t.strip() and not (e_csv and n == 1):  # o cabeçalho do CSV não é um problema
                problemas.append(f"linha {n}: não achei um código de entrega (um código começa com {PREFIXO}).")
            continue
        for c in codigos:
            try:
                d = ler_codigo(c)
            except Invalida as e:
                problemas.append(f"linha {n}: {e}.")
                continue
            if d["lista"] == lista:
                try:
                    d = ler_codigo(c, ids)
                except Invalida as e:
                    problemas.append(f"linha {n}: {e}; ficou de fora.")
                    continue
            if d["lista"] != lista:
                problemas.append(f"linha {n}: o código é da lista «{d['lista']}», não da «{lista}»; ficou de fora.")
                continue
            if d["m"] not in matriculas:
                problemas.append(f"linha {n}: a matrícula {d['m']} não está na turma; o código ficou de fora.")
                continue
            linhas_de.setdefault(d["m"], []).append(n)
            entregas[d["m"]] = (n, d)
    for m, ns in linhas_de.items():
        if len(ns) > 1:
            problemas.append(f"a matrícula {m} entregou {len(ns)} códigos (linhas {', '.join(map(str, ns))}); "
                             f"vale o último, da linha {ns[-1]}.")
    return entregas, problemas


def corrigir(cfg, turma, entregas):
    """-> [linhas de respostas]: (matrícula, nome, id, versão, resposta, veredito, erro, pontos, máximo)."""
    linhas = []
    for nome, m in turma:
        s = semente(cfg["lista"], m)
        d = entregas.get(m, (None, None))[1]
        for id_, pts in cfg["exercicios"]:
            v = versao(id_, s)
            resp = (d["respostas"].get(id_) or "").strip() if d else ""
            erro = ""
            if d is None:
                estado = "ausente"
            elif not resp:
                estado = "branco"
            else:
                estado, e, _, msg = conferir(v, resp)
                erro = e.nome if e is not None else (msg if estado == "invalido" else "")
            linhas.append((m, nome, id_, rotulo_versao(id_, s), resp, estado, erro, pts if estado == "certo" else 0, pts))
    return linhas


def _csv(linhas):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(linhas)
    return buf.getvalue()


def _n(x):
    return num(x, 0) if x == int(x) else num(x, 1)


def notas_csv(cfg, turma, linhas, entregas):
    ids = [i for i, _ in cfg["exercicios"]]
    pts = {(r[0], r[2]): r[7] for r in linhas}
    out = [["matricula", "nome", "entregou", *ids, "total", "maximo"]]
    maximo = sum(p for _, p in cfg["exercicios"])
    for nome, m in turma:
        total = sum(pts[(m, i)] for i in ids)
        out.append([m, nome, "sim" if m in entregas else "não", *[_n(pts[(m, i)]) for i in ids], _n(total), _n(maximo)])
    return _csv(out)


def _barra(rotulo, n, total, classe):
    largura = 100 * n / total if total else 0
    return (f'<tr><td>{rotulo}</td><td class="n">{n}</td><td class="barra"><span class="{classe}" '
            f'style="width:{largura:.1f}%"></span></td></tr>')


def relatorio(cfg, turma, linhas, problemas):
    entregaram = {r[0] for r in linhas if r[5] != "ausente"}
    totais = [sum(r[7] for r in linhas if r[0] == m) for m in sorted(entregaram)]
    maximo = sum(p for _, p in cfg["exercicios"])
    media = (f" Média de quem entregou: {num(sum(totais) / len(totais), 1)} de {_n(maximo)} pontos."
             if totais else "")
    partes = [f"<h1>Correção da lista «{esc(cfg['lista'])}»</h1>",
              f"<p>{contagem(len(turma), 'aluno')} na turma, {contagem(len(entregaram), 'entrega', 'entregas')}.{media} "
              "Cada resposta foi conferida de novo, na versão do aluno, pelo mesmo código das páginas do livro.</p>"]
    if problemas:
        partes.append("<h2>Problemas nas entregas</h2><ul>" + "".join(f"<li>{esc(p)}</li>" for p in problemas) + "</ul>")
    for id_, pts in cfg["exercicios"]:
        rs = [r for r in linhas if r[2] == id_ and r[5] != "ausente"]
        conta = {}
        for r in rs:
            chave = ("certo", "") if r[5] == "certo" else (r[5], r[6] if r[5] == "errado" else "")
            conta[chave] = conta.get(chave, 0) + 1
        tab = [_barra("certo", conta.get(("certo", ""), 0), len(rs), "ok")]
        erros = sorted(((k[1], c) for k, c in conta.items() if k[0] == "errado" and k[1]), key=lambda x: (-x[1], x[0]))
        tab += [_barra(f"erro típico: <strong>{esc(nome)}</strong>", c, len(rs), "erro") for nome, c in erros]
        for k, rot in (("errado", "errado, sem erro típico reconhecido"), ("invalido", "ilegível"), ("branco", "em branco")):
            if conta.get((k, "")):
                tab.append(_barra(rot, conta[(k, "")], len(rs), "outro"))
        soltas = {}
        for r in rs:
            if r[5] == "errado" and not r[6]:
                soltas.setdefault(r[4], []).append(r[0])
        lista_soltas = "".join(f"<li>«{esc(t)}» ({esc(', '.join(ms))}, versão própria de cada um)</li>"
                               for t, ms in sorted(soltas.items(), key=lambda x: (-len(x[1]), x[0])))
        partes.append(f'<h2>{esc(EXERCICIOS[id_].titulo)} <span class="versao">({esc(id_)}, '
                      f'{contagem(pts, "ponto") if pts == int(pts) else _n(pts) + " pontos"})</span></h2>'
                      f'<table class="conta-erros" aria-label="respostas de {esc(id_)}">{"".join(tab)}</table>'
                      + (f"<p>Respostas erradas que nenhum erro típico explica:</p><ul>{lista_soltas}</ul>"
                         if lista_soltas else ""))
    estilo = (ESTILO + ".barra{width:60%}.barra span{display:block;height:0.9em;background:#888}"
              ".barra span.ok{background:#1a7f37}.barra span.erro{background:#b35900}")
    return (f'<!DOCTYPE html>\n<html lang="pt-BR"><head><meta charset="utf-8"><title>Correção: '
            f'{esc(cfg["lista"])}</title><style>{estilo}</style></head><body>\n' + "\n".join(partes) + "\n</body></html>\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Corrige as entregas de uma lista: notas e os erros da turma.")
    ap.add_argument("--lista", default="lista")
    ap.add_argument("--turma")
    ap.add_argument("--alunos", type=int)
    ap.add_argument("--entregas", required=True)
    ap.add_argument("--saida", default="_build/listas")
    a = ap.parse_args(argv)
    pasta = Path(a.saida) / a.lista
    try:
        try:
            cfg = json.loads((pasta / "lista.json").read_text(encoding="utf-8"))
        except OSError:
            raise Invalida(f"não achei {pasta}/lista.json: rode antes make listas LISTA={a.lista} "
                           "(com a mesma turma e os mesmos exercícios).") from None
        turma = ler_turma(_texto(a.turma)) if a.turma else turma_rapida(a.alunos or 30)
        try:
            texto = _texto(a.entregas)
        except OSError:
            raise Invalida(f"não achei o arquivo das entregas, {a.entregas}.") from None
    except Invalida as e:
        raise SystemExit(f"make corrige: {e}") from None
    entregas, problemas = ler_entregas(texto, cfg["lista"], {m for _, m in turma}, [i for i, _ in cfg["exercicios"]],
                                       a.entregas.lower().endswith(".csv"))
    linhas = corrigir(cfg, turma, entregas)
    (pasta / "notas.csv").write_text(notas_csv(cfg, turma, linhas, entregas), encoding="utf-8")
    cab = [["matricula", "nome", "exercicio", "versao", "resposta", "veredito", "erro_tipico", "pontos", "maximo"]]
    (pasta / "respostas.csv").write_text(
        _csv(cab + [[*r[:5], VEREDITOS[r[5]], r[6], _n(r[7]), _n(r[8])] for r in linhas]), encoding="utf-8")
    (pasta / "relatorio.html").write_text(relatorio(cfg, turma, linhas, problemas), encoding="utf-8")
    for p in problemas:
        print("aviso:", p)
    print(f"{contagem(len(entregas), 'entrega corrigida', 'entregas corrigidas')} de "
          f"{contagem(len(turma), 'aluno')}: {pasta}/notas.csv, respostas.csv e relatorio.html")


if __name__ == "__main__":
    main()
