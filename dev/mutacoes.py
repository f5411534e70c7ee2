"""Mutações de uma linha no brinquedo: os testes e a trava pegam cada uma?

Cada mutação troca um trecho de `lab/livro/brinquedo.py` numa cópia temporária (uma constante,
um operador, um índice) e pergunta a dois juízes:

- os testes rápidos do brinquedo (`tests/test_brinquedo*.py`, rodados contra a cópia);
- a trava rápida (`book/_ext/rapido.py`): roda o código de todas as páginas com a cópia e
  compara cada número que o leitor vê com `book/numeros.lock.json`.

Uma mutação "escapa" se nenhum dos dois a nota. O alvo: nenhuma escapa; as que a trava
pega e os testes não são números que o leitor vê sem teste próprio (o relatório mostra).

    python dev/mutacoes.py                      # todas, testes e trava
    python dev/mutacoes.py --so-testes          # só os testes (segundos por mutação)
    python dev/mutacoes.py --testes-de main     # os testes como estão no ramo main
    python dev/mutacoes.py -k gelu              # só as mutações com "gelu" no nome
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
BRINQUEDO = RAIZ / "lab" / "livro" / "brinquedo.py"
PY = sys.executable

# (nome, trecho original, trecho mutado): o trecho aparece uma vez só em lab/livro/brinquedo.py.
MUTACOES = [
    ("gelu: K_GELU = 0.0447", "K_GELU = 0.044715", "K_GELU = 0.0447"),
    ("gelu: √(1/π) no lugar de √(2/π)", "C_GELU = math.sqrt(2 / math.pi)", "C_GELU = math.sqrt(1 / math.pi)"),
    ("gelu: 1 - tanh", "0.5 * z * (1 + math.tanh(", "0.5 * z * (1 - math.tanh("),
    ("LN: ε = 1e-3", "EPS = 1e-5", "EPS = 1e-3"),
    ("LN: variância com n - 1", "for x in v) / len(v) + EPS)", "for x in v) / (len(v) - 1) + EPS)"),
    ("LN: sem subtrair a média", "return [(x - mu) / s for x in v]", "return [x / s for x in v]"),
    ("atenção: escala d_h, não √d_h", "escala = math.sqrt(len(Qc[0]))", "escala = len(Qc[0])"),
    ("máscara: j < i (diagonal fora)", "(j <= i or not causal)", "(j < i or not causal)"),
    ("softmax: (x - m) * T", "math.exp((x - m) / T)", "math.exp((x - m) * T)"),
    ("bloco: h = a (sem residual)", "h = soma(X, a)                                       # (n, d)",
     "h = a                                                # (n, d)"),
    ("bloco: y = h - m", "y = soma(h, m)                                       # (n, d)",
     "y = [[p - q for p, q in zip(r, s)] for r, s in zip(h, m)]"),
    ("saída: sem a norma final", "y_chapeu = LN(y)                          # (n, d)",
     "y_chapeu = y                              # (n, d)"),
    ("embeddings: posição deslocada (pos + 1)", "return [soma(E[t], P[pos]) for pos, t in enumerate(ids)]",
     "return [soma(E[t], P[min(pos + 1, n_ctx - 1)]) for pos, t in enumerate(ids)]"),
    ("peso: E[␣no] = [0, 0, -1, 0.25]", "[0, 0, -1, 0.5],   # 1  ␣no", "[0, 0, -1, 0.25],  # 1  ␣no"),
    ("peso: W_U[0][9] = 0.959", "-0.24,  0.958, -0.666", "-0.24,  0.959, -0.666"),
    ("MLP: W1 = [I | I]", "(-1.0 if j == i + d else 0.0)", "(1.0 if j == i + d else 0.0)"),
    ("perdas: alvo ids[i], não ids[i + 1]", "[-math.log(p[i][ids[i + 1]])", "[-math.log(p[i][ids[i]])"),
    ("ranking: empate, maior id primeiro", "key=lambda i: (-p[i], i)", "key=lambda i: (-p[i], -i)"),
    ("top-k: k + 1", "ordem = ordem[:k]", "ordem = ordem[:k + 1]"),
    ("top-p: > no lugar de >=", "if acum >= top_p - 1e-12:", "if acum > top_p:"),
    ("top-p: sem a folga do arredondamento", "if acum >= top_p - 1e-12:", "if acum >= top_p:"),
    ("sorteio: u <= s", "if u < s:", "if u <= s:"),
    ("sorteio: u fora cai no primeiro", "    return ordem[-1]\n\n\ndef escolher", "    return ordem[0]\n\n\ndef escolher"),
    ("validação: u = 0 recusado", "0 <= u < 1", "0 < u < 1"),
    ("validação: top-p = 1 recusado", "0 < top_p <= 1)", "0 < top_p < 1)"),
    ("geração: para em n_ctx + 1", "if tok == EOT or len(seq) >= n_ctx:", "if tok == EOT or len(seq) > n_ctx:"),
    ("geração: p do passo com T", '"p": softmax(z)[tok]', '"p": det["p"][tok]'),
    ("cache de KV: posição pos - 1", "x = soma(E[token], P[pos])", "x = soma(E[token], P[pos - 1])"),
    ("cache de KV: K no lugar de V", "matmul([softmax(s)], cabeca(self.V, c))[0]",
     "matmul([softmax(s)], cabeca(self.K, c))[0]"),
    ("simulador: escores sem máscara", "S = escores(Q, K)                                  # (3, 3)",
     "S = escores(Q, K, causal=False)                    # (3, 3)"),
]


def aplica(texto: str, antes: str, depois: str) -> str:
    n = texto.count(antes)
    if n != 1:
        raise SystemExit(f"mutação inválida: {antes!r} aparece {n} vezes em lab/livro/brinquedo.py")
    return texto.replace(antes, depois)


def _arquivos_de_teste(ref: str | None) -> dict[str, str]:
    """{nome: conteúdo} dos testes do brinquedo (do disco, ou de um ramo do git)."""
    if ref is None:
        return {p.name: p.read_text(encoding="utf-8") for p in sorted((RAIZ / "tests").glob("test_brinquedo*.py"))}
    nomes = subprocess.run(["git", "ls-tree", "--name-only", ref, "tests/"], cwd=RAIZ, check=True,
                           capture_output=True, text=True).stdout.split()
    res = {}
    for n in nomes:
        if Path(n).name.startswith("test_brinquedo") and n.endswith(".py"):
            res[Path(n).name] = subprocess.run(["git", "show", f"{ref}:{n}"], cwd=RAIZ, check=True,
                                               capture_output=True, text=True).stdout
    return res


def prepara(tmp: Path, testes: dict[str, str]):
    """Uma cópia mínima: lab/ (onde a mutação entra) e os testes do brinquedo."""
    shutil.copytree(RAIZ / "lab", tmp / "lab", ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    (tmp / "tests").mkdir()
    for nome, texto in testes.items():
        (tmp / "tests" / nome).write_text(texto, encoding="utf-8")


def roda_testes(tmp: Path) -> tuple[bool, str]:
    """(pegou?, primeira falha) dos testes do brinquedo contra a cópia."""
    r = subprocess.run([PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--no-header",
                        "--rootdir", str(tmp), "tests"], cwd=tmp, capture_output=True, text=True,
                       timeout=600, check=False,
                       # o pacote livro da cópia (com a mutação) na frente do instalado
                       env=dict(os.environ, PYTHONPATH=str(tmp / "lab")))
    falha = next((ln for ln in r.stdout.splitlines() if ln.startswith("FAILED")), "")
    return r.returncode != 0, falha.removeprefix("FAILED ")[:100]


def roda_trava(brinquedo: Path, sem_widgets=False) -> tuple[bool, list[str]]:
    """(pegou?, linhas de diferença) da trava rápida com o brinquedo mudado.
    sem_widgets: como era a trava antes de cobrir os widgets (para comparar)."""
    from livro_ext import rapido

    res = rapido.executar(rapido.paginas(), str(brinquedo))
    linhas = rapido.comparar(res)
    if sem_widgets:
        linhas = [ln for ln in linhas if " · widget:" not in ln]
    return bool(linhas), linhas


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--so-testes", action="store_true", help="não roda a trava rápida")
    ap.add_argument("--testes-de", metavar="REF", help="os testes do brinquedo de um ramo do git")
    ap.add_argument("--sem-widgets", action="store_true",
                    help="ignora os widgets na trava (como ela era antes de cobri-los)")
    ap.add_argument("--antes", metavar="REF",
                    help="também o placar de antes: os testes de REF e a trava sem os widgets")
    ap.add_argument("-k", default="", help="só mutações com este trecho no nome")
    a = ap.parse_args(argv)
    original = BRINQUEDO.read_text(encoding="utf-8")
    escolhidas = [m for m in MUTACOES if a.k.lower() in m[0].lower()]
    for _, antes, depois in escolhidas:     # todas válidas antes de começar
        aplica(original, antes, depois)
    testes = _arquivos_de_teste(a.testes_de)
    print(f"{len(escolhidas)} mutações; testes: {', '.join(testes)}"
          + (f" (de {a.testes_de})" if a.testes_de else "") + ("" if a.so_testes else "; trava rápida"))
    # sem mutação, tudo tem de passar (senão a contagem não diz nada)
    with tempfile.TemporaryDirectory(prefix="mut-") as t:
        tmp = Path(t)
        prepara(tmp, testes)
        ok_testes, falha = roda_testes(tmp)
        if ok_testes:
            raise SystemExit(f"os testes falham sem mutação nenhuma: {falha}")
        if not a.so_testes:
            pegou, linhas = roda_trava(tmp / "lab" / "livro" / "brinquedo.py", a.sem_widgets)
            if pegou:
                raise SystemExit("a trava rápida acusa diferença sem mutação:\n" + "\n".join(linhas[:20]))
    testes_antes = _arquivos_de_teste(a.antes) if a.antes else None
    placar0 = {"testes": 0, "trava": 0, "algum": 0}
    pelos_testes = pela_trava = escapam = 0
    t0 = time.time()
    for nome, antes, depois in escolhidas:
        with tempfile.TemporaryDirectory(prefix="mut-") as t:
            tmp = Path(t)
            prepara(tmp, testes)
            (tmp / "lab" / "livro" / "brinquedo.py").write_text(aplica(original, antes, depois), encoding="utf-8")
            pt, falha = roda_testes(tmp)
            pl, linhas = (False, []) if a.so_testes else roda_trava(tmp / "lab" / "livro" / "brinquedo.py", a.sem_widgets)
            if testes_antes is not None:
                shutil.rmtree(tmp / "tests")
                (tmp / "tests").mkdir()
                for nome_t, texto in testes_antes.items():
                    (tmp / "tests" / nome_t).write_text(texto, encoding="utf-8")
                pt0, _ = roda_testes(tmp)
                pl0 = any(" · widget:" not in ln for ln in linhas)
                placar0["testes"] += pt0
                placar0["trava"] += pl0
                placar0["algum"] += pt0 or pl0
        pelos_testes += pt
        pela_trava += pl
        escapam += not (pt or pl)
        marca = "ESCAPA" if not (pt or pl) else "pega  "
        onde = []
        if pt:
            onde.append(f"testes ({falha.split('::')[-1][:50]})")
        if pl:
            onde.append(f"trava ({len(linhas)} diferenças, ex.: {linhas[0][:60]})")
        print(f"  {marca} {nome}: {'; '.join(onde) or 'ninguém nota'}", flush=True)
    n = len(escolhidas)
    print(f"\nTestes do brinquedo pegam {pelos_testes} de {n}.")
    if not a.so_testes:
        print(f"Trava rápida pega {pela_trava} de {n}.")
        print(f"Testes ou trava pegam {n - escapam} de {n} ({time.time() - t0:.0f} s).")
    if testes_antes is not None:
        print(f"Antes ({a.antes}): testes pegam {placar0['testes']} de {n}"
              + ("" if a.so_testes else f"; trava sem widgets {placar0['trava']}; um ou outro {placar0['algum']}")
              + ".")
    return 1 if escapam else 0


if __name__ == "__main__":
    sys.exit(main())
