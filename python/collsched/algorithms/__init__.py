"""Scheduling algorithms, one package per problem family, registered by name."""

from .registry import Algorithm, applicable, get, names, register

__all__ = ["Algorithm", "register", "get", "names", "applicable"]
