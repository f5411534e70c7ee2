"""Números no formato brasileiro: vírgula decimal, ponto de milhar.

Um só formatador para o livro inteiro (páginas, widgets, notebooks e testes).
Só a biblioteca padrão: roda igual no CPython e no Pyodide.

>>> num(0.3951)
'0,395'
>>> inteiro(50257)
'50.257'
>>> vetor([-0.5, 1.5], 1)
'[-0,5; 1,5]'
>>> tex(-0.739)
'{-}0{,}739'
"""

MENOS = "-"  # hífen-menos ASCII: é o que o leitor copia e cola num código


def _arredonda(x, casas):
    """Arredonda como o leitor espera ver (sem '-0,000')."""
    s = f"{x:.{casas}f}"
    if s.lstrip("-").strip("0.") == "":
        s = s.lstrip("-")
    return s


def num(x, casas=3, sinal=False):
    """Um número real com `casas` decimais e vírgula: 0,395."""
    s = _arredonda(float(x), casas)
    if "." in s:
        inteira, frac = s.split(".")
    else:
        inteira, frac = s, ""
    neg = inteira.startswith("-")
    inteira = inteira.lstrip("-")
    inteira = _milhar(inteira)
    s = ("-" if neg else "") + inteira + ("," + frac if frac else "")
    if sinal and not neg:
        s = "+" + s
    return s.replace("-", MENOS)


def _milhar(digitos):
    grupos = []
    while len(digitos) > 3:
        grupos.insert(0, digitos[-3:])
        digitos = digitos[:-3]
    grupos.insert(0, digitos)
    return ".".join(grupos)


def inteiro(n):
    """Um inteiro com ponto de milhar: 50.257 (e 7.087.872)."""
    n = int(n)
    return ("-" if n < 0 else "") + _milhar(str(abs(n)))


def pct(x, casas=0):
    """Uma fração como porcentagem: 0,666 -> '67%'."""
    return num(100 * x, casas) + "%"


def vetor(v, casas=3):
    """Um vetor entre colchetes, separado por ponto e vírgula: [-0,5; 1,5]."""
    return "[" + "; ".join(num(x, casas) for x in v) + "]"


def tex(x, casas=3):
    """O mesmo número para LaTeX: a vírgula vira {,} e o sinal {-}, para não ganharem espaço."""
    return num(x, casas).replace(",", "{,}").replace("-", "{-}")


def tex_vetor(v, casas=3):
    """Vetor para LaTeX: [-0{,}5;\\ 1{,}5] (o \\ dá o espaço depois do ponto e vírgula)."""
    return "[" + r";\ ".join(tex(x, casas) for x in v) + "]"


def tex_inteiro(n):
    """Inteiro para LaTeX com ponto de milhar: 50{.}257."""
    return inteiro(n).replace(".", "{.}")


def casas_min(x, max_casas=3):
    """Tira zeros à direita: 0,50 -> 0,5; 2,0 -> 2."""
    s = num(x, max_casas)
    if "," in s:
        s = s.rstrip("0").rstrip(",")
    return s
