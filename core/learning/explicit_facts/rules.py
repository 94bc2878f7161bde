"""Every rule, in the order a clause tries them: the first that finds something wins, so
the order is the precedence. The specific rules come before the general ones that would
also match ("my sister Priya lives in Lisbon" is the sister's home before it is "my X is
Y"), and the bare-value correction ("no, Lisbon") comes last, after every rule that might
read the clause as a statement. A new rule is added here, where it is to be tried."""

from __future__ import annotations

from core.learning.explicit_facts import (
    corrections,
    health,
    identity,
    people,
    places,
    preferences,
    statements,
    work,
)
from core.learning.explicit_facts.engine import Rule

RULES: tuple[Rule, ...] = (
    corrections.it_is,
    places.lives_in,
    places.based_in,
    places.moved_to,
    places.been_living_in,
    places.have_lived_in,
    identity.call_me,
    identity.go_by,
    health.allergic_to,
    health.has_allergy,
    work.works_as,
    work.works_at,
    work.started_at,
    health.diet,
    health.doesnt_eat,
    preferences.prefers,
    people.relation,
    people.has_relation,
    people.adopted,
    people.married_to,
    work.got_a_job,
    work.signed,
    work.hired,
    work.joined,
    work.i_am_a,
    identity.my_age,
    work.studies,
    work.doing_a_degree,
    work.has_a_degree,
    work.goes_to,
    work.graduated,
    places.comes_from,
    places.grew_up_in,
    places.born,
    places.bought_a_home,
    statements.is_called,
    statements.my_x_is_y,
    statements.the_x_is_y,
    statements.someones_x_is_y,
    corrections.bare_value,
)
