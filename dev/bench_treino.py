"""Benchmark do treino (não é teste: mede e imprime "dentro"/"FORA").

    python dev/bench_treino.py          # CPython; depois o Pyodide e o Chromium (dev/bench_treino.mjs)

Orçamentos: a passada de volta no prompt ≤ 3 × a de ida (CPython e Pyodide); 200 passos de treino
no widget ≤ 3 s no Chromium, com as respostas de outro widget ≤ 100 ms enquanto ele treina.
A máquina pode estar dividida com outros trabalhos: os números servem como razão, lado a lado.
"""
import pathlib
import subprocess
import time

from livro import brinquedo as b
from livro import treino as tr

RAIZ = pathlib.Path(__file__).resolve().parent.parent


def melhor(fn, n=50, rodadas=5):
    """O melhor tempo médio (s) de `n` chamadas, em `rodadas` rodadas."""
    ts = []
    for _ in range(rodadas):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter() - t0) / n)
    return min(ts)


def main():
    pesos = tr.pesos_do_brinquedo()
    r = tr.ida(pesos, b.IDS_PROMPT)
    ida = melhor(lambda: tr.ida(pesos, b.IDS_PROMPT))
    volta = melhor(lambda: tr.volta(pesos, r))
    t0 = time.perf_counter()
    tr.treinar(20, tr.TAXA)
    passo = (time.perf_counter() - t0) / 20
    razao = volta / ida
    print("CPython, a passada no prompt (o melhor de 5 rodadas de 50):")
    print(f"  ida {ida * 1000:.2f} ms · volta {volta * 1000:.2f} ms · volta/ida {razao:.2f} "
          f"(≤ 3: {'dentro' if razao <= 3 else 'FORA'}) · um passo de treino {passo * 1000:.1f} ms")
    subprocess.run(["node", str(RAIZ / "dev" / "bench_treino.mjs")], cwd=RAIZ, check=False)


if __name__ == "__main__":
    main()
