"""The declaration of every validation code, one module per code family (`dk` holds DK001-DK011).

Each module's `RULES` declares its codes with what they mean, how to fix them, and an example model that
fires each with a near miss that does not (`shapes` builds those models). `engine.rules.registry` reads them.
"""
